"""mini-swe-agent's loop is synchronous: it runs in a thread of its own, and each model call or command it
makes is sent to the attempt's event loop (``asyncio.run_coroutine_threadsafe``) and waited for there.

Cancelling the attempt (agent timeout, run timeout, Ctrl-C) stops the thread promptly: the calls in flight
are cancelled on the loop (a command's process tree is killed, an HTTP request dropped), the waiting thread
gets :class:`Cancelled`, and so does every later call, so the agent unwinds through its own exception
handling (which records the exit in the trajectory) without running anything more.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
STOP_GRACE_S = 30.0


class Cancelled(Exception):
    """Raised inside the agent's thread once its attempt is cancelled."""


class LoopBridge:
    """Runs coroutines on ``loop`` for a thread that waits for them; :meth:`stop` cancels them all."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._lock = threading.Lock()
        self._stopped = False
        self._inflight: set[concurrent.futures.Future[Any]] = set()

    @property
    def stopped(self) -> bool:
        return self._stopped

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop and wait for its result (from a thread other than the loop's)."""
        with self._lock:
            if self._stopped:
                coro.close()
                raise Cancelled("the attempt was cancelled")
            future = asyncio.run_coroutine_threadsafe(coro, self.loop)
            self._inflight.add(future)
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            raise Cancelled("the attempt was cancelled") from None
        finally:
            with self._lock:
                self._inflight.discard(future)

    def stop(self) -> None:
        """Cancel every call in flight and refuse new ones. Idempotent; callable from the loop."""
        with self._lock:
            self._stopped = True
            pending = list(self._inflight)
        for future in pending:
            future.cancel()


async def run_in_thread(fn: Callable[[], T], bridge: LoopBridge, name: str) -> T:
    """``fn()`` in a new daemon thread; on cancellation, stop the bridge and give the thread
    :data:`STOP_GRACE_S` to unwind (it saves its trajectory on the way out) before re-raising."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not done.done():
            (done.set_result if ok else done.set_exception)(value)

    def target() -> None:
        try:
            result = fn()
        except BaseException as exc:
            outcome: tuple[bool, Any] = (False, exc)
        else:
            outcome = (True, result)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:  # the loop is gone (interpreter shutting down): nobody is waiting
            pass

    threading.Thread(target=target, name=name, daemon=True).start()
    try:
        return await asyncio.shield(done)
    except asyncio.CancelledError:
        bridge.stop()
        await asyncio.wait({done}, timeout=STOP_GRACE_S)
        if done.done() and not done.cancelled():
            done.exception()  # retrieved: the thread's Cancelled is expected here
        raise
