"""A cgroup v2 per local environment, where the machine lets this process make one.

The cgroup is made beside nothing else: a child of the cgroup this process is in, on the cgroup2 file system
(``/sys/fs/cgroup`` on a pure v2 machine, ``/sys/fs/cgroup/unified`` on a hybrid one). No controller is enabled:
the cgroup only groups the environment's processes, so that they can all be ended at once (``cgroup.kill``) even
when they left the supervisor's tree. Where the file system is missing, read-only, or not delegated to this user
(the usual case for an unprivileged user under systemd), :func:`base` is None and the supervisor alone contains
the processes.
"""

from __future__ import annotations

import functools
import os
import signal
import time
from pathlib import Path


def _mount_point() -> str | None:
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                if right.split()[:1] == ["cgroup2"]:
                    return left.split()[4]
    except OSError:
        return None
    return None


def _own_path() -> str | None:
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                if line.startswith("0::"):
                    return line[3:].strip()
    except OSError:
        return None
    return None


@functools.cache
def base() -> Path | None:
    """The cgroup2 directory of this process when it may make children there; None otherwise."""
    mount, own = _mount_point(), _own_path()
    if mount is None or own is None:
        return None
    path = Path(mount) / own.lstrip("/")
    try:
        members = (path / "cgroup.procs").read_text().split()
    except OSError:
        return None
    if str(os.getpid()) not in members or not os.access(path, os.W_OK | os.X_OK):
        return None  # a cgroup namespace that does not match the mount, or no delegation
    return path


def create(name: str) -> Path | None:
    """A new, empty cgroup ``name`` under :func:`base`; None where none can be made."""
    root = base()
    if root is None:
        return None
    path = root / name
    try:
        path.mkdir()
    except OSError:
        return None
    return path


def members(path: Path) -> list[int]:
    try:
        return [int(p) for p in (path / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def kill_and_remove(path: Path, timeout_s: float = 20.0) -> list[int]:
    """SIGKILL every process of cgroup ``path`` (``cgroup.kill``, Linux 5.14+; else one by one, again until
    none is left), wait until it is empty, remove it. Returns the pids still in it at the timeout."""
    if not path.is_dir():
        return []
    end = time.monotonic() + timeout_s
    kill_file = path / "cgroup.kill"
    pause = 0.0
    while True:
        pids = members(path)
        if not pids:
            break
        if time.monotonic() > end:
            return pids
        try:
            kill_file.write_text("1")
        except OSError:
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        pause = min(0.05, pause + 0.002)
        time.sleep(pause)
    try:
        path.rmdir()
    except OSError:
        pass  # busy for a moment after its last process left; cleanup() removes it later
    return []
