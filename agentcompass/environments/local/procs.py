"""Process helpers of the local environment: a command's output (head and tail), killing a process group, and
finding and killing every process of a workspace (those that left its group too)."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

from agentcompass.environments import _capture
from agentcompass.kit import start_ticks

# --------------------------------------------------------------------------- output capture


class HeadTail(_capture.HeadTail):
    """:class:`_capture.HeadTail` fed from a pipe."""

    async def drain_fd(self, fd: int) -> None:
        """Read pipe ``fd`` to its end (or until cancelled), then close it."""
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=1 << 16)
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", 0)
        )
        try:
            while chunk := await reader.read(65536):
                self.feed(chunk)
        finally:
            transport.close()


# --------------------------------------------------------------------------- processes


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def group_is_empty(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def boot_ticks() -> int:
    """Now, in the clock of ``/proc/<pid>/stat`` start times (clock ticks since boot)."""
    return int(time.clock_gettime(time.CLOCK_BOOTTIME) * _CLK_TCK)


def _read(path: str, size: int) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(fd, size)
    except OSError:
        return None
    finally:
        os.close(fd)


def _started_before(pid: int, ticks: int) -> bool:
    started = start_ticks(pid)
    return started is None or started < ticks


def kill_workspace_processes(root: Path, since_ticks: int | None = None, rounds: int = 10) -> int:
    """SIGKILL every process whose environment carries ``AGENTCOMPASS_ROOT=<root>`` (Linux /proc), scanning
    again until a scan finds none (a process forking while it is being killed leaves no survivor).

    With ``since_ticks`` (see :func:`boot_ticks`) only processes started since then are examined: reading a
    process's start time is cheap, reading its environment is not (busy machines run thousands of processes).
    """
    if not os.path.isdir("/proc"):
        return 0
    needle = b"\0AGENTCOMPASS_ROOT=" + str(root).encode() + b"\0"
    total = 0
    for _ in range(rounds):
        killed = _kill_matching(needle, since_ticks)
        total += killed
        if not killed:
            break
        time.sleep(0.01)
    return total


def _kill_matching(needle: bytes, since_ticks: int | None) -> int:
    killed, me = 0, os.getpid()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        pid = int(entry.name)
        if since_ticks is not None and _started_before(pid, since_ticks):
            continue
        environ = _read(f"/proc/{pid}/environ", 1 << 22)
        if environ and needle in b"\0" + environ and not _is_zombie(pid):
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
    return killed


def _is_zombie(pid: int) -> bool:
    stat = _read(f"/proc/{pid}/stat", 4096)
    return bool(stat) and stat.rsplit(b")", 1)[1].split()[:1] == [b"Z"]
