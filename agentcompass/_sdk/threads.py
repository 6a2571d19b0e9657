"""Running a coroutine from synchronous code, also from a thread that already runs an event loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``asyncio.run(make())``; inside a running event loop, in a fresh thread of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    return in_thread(lambda: asyncio.run(make()))  # type: ignore[no-any-return]


def in_thread(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` in a fresh thread and return its value (or raise its exception) in the caller's thread."""
    values: list[Any] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            values.append(fn())
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)

    thread = threading.Thread(target=target, name="agentcompass-run")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return values[0]
