"""What an environment's resources did to an attempt: the kernel's OOM killer (:data:`~agentcompass.interfaces.
OUT_OF_MEMORY`). An attempt that fails, or scores below full, in an environment where processes were killed for
memory ends in :class:`~agentcompass.errors.OutOfMemoryError`: the cause, named with the limit, instead of what it
led to (a crashed harness, a failed test)."""

from __future__ import annotations

from typing import Any

from agentcompass.errors import OutOfMemoryError, StorageError, one_line
from agentcompass.interfaces import OUT_OF_MEMORY


def out_of_memory(env: Any) -> str | None:
    """The environment's account of OOM kills so far, or None (none, or not known)."""
    method = OUT_OF_MEMORY.of(env) if env is not None else None
    return method() if method is not None else None


def oom_error(env: Any, phase: str | None, then: BaseException | str | None = None) -> OutOfMemoryError | None:
    """The OutOfMemoryError of an attempt that failed in ``phase`` (``then``: what it failed with, or why the
    reward is not full); None when the environment killed nothing for memory."""
    what = out_of_memory(env)
    if what is None:
        return None
    after = one_line(then) if isinstance(then, BaseException) else then
    where = f" in the {phase} phase" if phase else ""
    return OutOfMemoryError(f"out of memory{where}: {what}" + (f"; then {after}" if after else ""))


def typed(exc: BaseException, env: Any, phase: str | None) -> BaseException:
    """``exc`` as what it is: an OutOfMemoryError (caused by ``exc``) when the environment killed processes for
    memory, else ``exc`` itself (a full disk, a cancellation, an OOM already named stay as they are)."""
    if isinstance(exc, (OutOfMemoryError, StorageError)) or not isinstance(exc, Exception):
        return exc
    oom = oom_error(env, phase, exc)
    if oom is None:
        return exc
    oom.__cause__ = exc
    return oom
