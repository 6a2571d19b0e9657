"""Process trees from ``/proc``: the descendants of a process, and killing them all (standard library only: the
supervisor and its zygote import this as a plain module, without the package)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable

PR_SET_CHILD_SUBREAPER = 36
KILL_DEADLINE_S = 20.0  # the longest a kill of a tree may take before it gives up


def set_subreaper() -> None:
    """``prctl(PR_SET_CHILD_SUBREAPER, 1)``: orphaned descendants re-parent to this process, not to init."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, ppid) of ``pid`` from ``/proc/<pid>/stat``; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0].decode(), int(fields[1])


def descendants(root: int, skip: frozenset[int] = frozenset()) -> dict[int, str]:
    """Every descendant of ``root`` (pid -> state letter), from one scan of ``/proc``; the processes in
    ``skip`` and their descendants are left out."""
    children: dict[int, list[tuple[int, str]]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            info = _stat(int(entry.name))
            if info is not None:
                children.setdefault(info[1], []).append((int(entry.name), info[0]))
    found: dict[int, str] = {}
    todo = [root]
    while todo:
        for pid, state in children.get(todo.pop(), ()):
            if pid not in found and pid not in skip:
                found[pid] = state
                todo.append(pid)
    return found


def command_lines(pids: dict[int, str], limit: int = 50) -> list[str]:
    """The command lines of ``pids`` (at most ``limit``, each at most 300 characters), zombies left out."""
    out = []
    for pid, state in sorted(pids.items()):
        if state == "Z" or len(out) >= limit:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                line = f.read().replace(b"\0", b" ").strip().decode("utf-8", "replace")
        except OSError:
            continue
        out.append(line[:300])
    return out


def kill_descendants(
    root: int,
    reap: Callable[[], None] | None = None,
    deadline_s: float = KILL_DEADLINE_S,
    skip: Callable[[], frozenset[int]] = frozenset,
) -> list[int]:
    """SIGKILL every descendant of ``root`` (but those of ``skip()``), scanning again until a scan finds none
    alive and none unreaped (``reap``, when given, collects the caller's own zombies after each round).
    Returns the pids still there at the deadline (empty: all gone)."""
    end = time.monotonic() + deadline_s
    pause = 0.0
    while True:
        found = descendants(root, skip())
        for pid, state in found.items():
            if state != "Z":
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        if reap is not None:
            reap()
        if not found:
            return []
        if time.monotonic() > end:
            return sorted(found)
        pause = min(0.05, pause + 0.002)  # zombies wait for their parents' death to come to us
        time.sleep(pause)


def drain(fd: int) -> None:
    """Read a non-blocking pipe (a signal wake-up pipe) empty."""
    while True:
        try:
            if not os.read(fd, 512):
                return
        except (BlockingIOError, InterruptedError):
            return


def wake_pipe() -> tuple[int, int]:
    """A non-blocking pipe that signals with a Python handler write to (``signal.set_wakeup_fd``)."""
    r, w = os.pipe()
    os.set_blocking(r, False)
    os.set_blocking(w, False)
    return r, w
