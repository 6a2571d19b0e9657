"""The lock of a run directory: one live process at a time runs (or reuses) a run.

The lock is ``flock(LOCK_EX | LOCK_NB)`` on the run's lock file, held on an open descriptor for as long as the run
executes. The kernel releases it when the holder exits in any way (``kill -9`` included), so a lock left by a dead
process, or by a machine that rebooted, is simply taken. The file's content names the holder (pid, host, boot id,
process start time, since) for the message a refused process prints. Where the file system has no ``flock`` (some
network or FUSE mounts) the content decides: a holder that is this host's live process (same boot, same pid, same
start time) keeps the run; any other content is stale and is taken over.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict

from agentcompass.errors import RunInUseError
from agentcompass.kit import process_alive, start_ticks

_NO_FLOCK = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL}


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


class Holder(TypedDict, total=False):
    """``run.lock``'s content: the process holding the run."""

    pid: int
    host: str
    boot_id: str
    start_ticks: str  # the process's start time in clock ticks (tells a reused pid apart)
    since: str  # ISO 8601, UTC


def _start_ticks(pid: int) -> str:
    ticks = start_ticks(pid)
    return "" if ticks is None else str(ticks)


def holder_info() -> Holder:
    """Who this process is, as the lock file records it."""
    pid = os.getpid()
    return {
        "pid": pid,
        "host": socket.gethostname(),
        "boot_id": _boot_id(),
        "start_ticks": _start_ticks(pid),
        "since": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def holder_alive(info: Holder) -> bool:
    """True when ``info`` names a process of this host's current boot that still runs (not a reused pid)."""
    pid = info.get("pid")
    if not isinstance(pid, int) or info.get("host") != socket.gethostname() or info.get("boot_id") != _boot_id():
        return False
    return process_alive(pid) and (not info.get("start_ticks") or _start_ticks(pid) == info.get("start_ticks"))


def describe_holder(info: Holder) -> str:
    return f"pid {info.get('pid', '?')} on host {info.get('host', '?')} since {info.get('since', '?')}"


@dataclass
class RunLock:
    """A held lock; :meth:`release` (idempotent) gives it up and removes the file."""

    path: Path
    fd: int | None

    def release(self) -> None:
        if self.fd is None:
            return
        fd, self.fd = self.fd, None
        try:
            if os.path.exists(self.path) and os.stat(self.path).st_ino == os.fstat(fd).st_ino:
                os.unlink(self.path)  # still ours: nobody else can hold it while we do
        except OSError:
            pass
        finally:
            os.close(fd)


def _read(fd: int) -> Holder:
    """The lock file's holder as written (by any process: its values are checked where they are used)."""
    try:
        data = json.loads(os.pread(fd, 4096, 0).decode("utf-8", "replace") or "{}")
    except (OSError, ValueError):
        return Holder()
    return data if isinstance(data, dict) else Holder()


def _write(fd: int, info: Holder) -> None:
    raw = json.dumps(info).encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, raw, 0)


def acquire(path: Path, run_id: str) -> RunLock:
    """Take the lock of run ``run_id`` at ``path``, or raise :class:`RunInUseError` naming its live holder."""
    for _ in range(20):
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            if not _lock(fd):
                raise RunInUseError(
                    f"run {run_id!r} is in use by {describe_holder(_read(fd))} (lock file "
                    f"{path}); wait for it to finish or stop it first"
                )
            if os.path.exists(path) and os.stat(path).st_ino == os.fstat(fd).st_ino:
                _write(fd, holder_info())
                return RunLock(path, fd)
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # the file we locked was removed by a releasing holder: try again
        time.sleep(0.01)
    raise RunInUseError(f"run {run_id!r}: could not take the lock file {path} (it keeps being replaced)")


def _lock(fd: int) -> bool:
    """True when the lock is now ours; False when a live process holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    except OSError as exc:
        if exc.errno not in _NO_FLOCK:
            raise
    info = _read(fd)  # no flock on this file system: the content decides
    return not info or not holder_alive(info)
