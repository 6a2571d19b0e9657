"""Uploads and prepared commands delivered with the next command: one exec instead of several round trips.

``upload`` and ``write_file`` build their archive at once (a missing source fails there) and stage it. The next
``exec`` carries everything staged as one archive on its stdin: the wrapper extracts it with the container's own
``tar`` as root, reports ``extracted`` in-band (:class:`~.execstream.ExitTrailer`), and only then runs the command,
its stdin at end of file as without the upload. Other executions wait until the report has arrived, so every
command sees the files. When extraction cannot be done that way (no ``tar``, not root, a failure, another
transport), the wrapper reports ``unextracted`` without running the command, and the archive goes through
``put_archive`` before the command runs as usual. File reads and copies deliver what is staged through
``put_archive`` first. Archives above ``FUSE_MAX_BYTES`` always take that way.

``prepare(command, what=...)`` stages a shell command (a benchmark's setup) the same way: it runs, under ``bash
-c``, at the start of the next exec, before the staged archive is extracted and before the command; its output is
kept only when it fails, which fails that operation with a :class:`SandboxError` naming ``what`` (the command does
not run). File reads and copies run it first in an exec of its own. Prepared commands must be idempotent: one
whose exec was cancelled or timed out before it reported runs again with the next operation.

Both ways place the same files with the same metadata (tests/environments/test_docker_staging.py compares them),
replacing what is in the way as ``put_archive`` does; where ``tar`` refuses (a file over a non-empty directory, a
read-only mount), the archive goes through ``put_archive``, which writes it as before.
"""

from __future__ import annotations

import asyncio
import io
import socket
import tarfile
import tempfile
from dataclasses import dataclass
from typing import IO, Any

from agentcompass.environments.docker.execstream import TOKEN_VAR
from agentcompass.environments.docker.tarsafe import SPOOL_BYTES

FUSE_MAX_BYTES = 16 * 1024 * 1024
EXTRACTED, UNEXTRACTED, PREPARED, UNPREPARED = "extracted", "unextracted", "prepared", "unprepared"
PREPARE_VAR = "AGENTCOMPASS_PREPARE"
PREPARED_REPORT = f"printf '\\001ac:%s:{PREPARED}\\002' \"${TOKEN_VAR}\" >&2; "

EXTRACT_PREFIX = (
    'if [ "$(id -u 2>/dev/null)" = 0 ] && tar -x -p -f - -C / 2>/dev/null; then '
    f"printf '\\001ac:%s:{EXTRACTED}\\002' \"${TOKEN_VAR}\" >&2; "
    f"else printf '\\001ac:%s:{UNEXTRACTED}\\002' \"${TOKEN_VAR}\" >&2; exit 0; fi; exec </dev/null; "
)


@dataclass(frozen=True)
class Prepared:
    command: str
    what: str
    timeout: float | None = None


def prepare_prefix(commands: list[Prepared]) -> tuple[str, dict[str, str]]:
    """The wrapper's start running ``commands`` in order (each from an environment variable, under ``bash -c``):
    on the first failure its output, ``unprepared<i>`` and its exit code are reported and nothing else runs."""
    script, variables = "", {}
    for i, prepared in enumerate(commands):
        var = f"{PREPARE_VAR}_{i}"
        variables[var] = prepared.command
        script += (
            f'ac_out=$(bash -c "${var}" 2>&1) || {{ ac_rc=$?; printf "%s" "$ac_out" >&2; '
            f'printf \'\\001ac:%s:{UNPREPARED}{i}\\002\\001ac:%s:%d\\002\' "${TOKEN_VAR}" "${TOKEN_VAR}" '
            f'"$ac_rc" >&2; exit 0; }}; '
        )
    return script + "unset " + " ".join(variables) + "; ", variables


def merge(archives: list[IO[bytes]]) -> IO[bytes]:
    """One archive holding the members of ``archives`` in order (a later member overwrites an earlier one, as
    extracting them one after the other would); the sources are closed."""
    if len(archives) == 1:
        archives[0].seek(0)
        return archives[0]
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
    with tarfile.open(fileobj=spool, mode="w", format=tarfile.PAX_FORMAT) as out:
        for archive in archives:
            archive.seek(0)
            with tarfile.open(fileobj=archive, mode="r:") as tar:
                for member in tar:
                    out.addfile(member, tar.extractfile(member) if member.isfile() else None)
            archive.close()
    spool.seek(0)
    return spool


def size_of(archive: IO[bytes]) -> int:
    archive.seek(0, io.SEEK_END)
    size = archive.tell()
    archive.seek(0)
    return size


class Staged:
    """The archives and prepared commands staged in one environment, and the lock under which they are delivered
    (prepared commands first, then the archives, in the order they were staged)."""

    def __init__(self) -> None:
        self.archives: list[IO[bytes]] = []
        self.commands: list[Prepared] = []
        self.lock = asyncio.Lock()

    @property
    def pending(self) -> bool:
        return bool(self.archives or self.commands)

    def add(self, archive: IO[bytes]) -> None:
        self.archives.append(archive)

    def take(self) -> tuple[list[IO[bytes]], list[Prepared]]:
        archives, commands, self.archives, self.commands = self.archives, self.commands, [], []
        return archives, commands

    def put_back_commands(self, commands: list[Prepared]) -> None:
        self.commands[:0] = commands

    def put_back(self, archive: IO[bytes]) -> None:
        """A delivery did not happen: the archive goes first again."""
        archive.seek(0)
        self.archives.insert(0, archive)

    def discard(self) -> None:
        for archive in self.take()[0]:
            archive.close()


async def feed_stdin(sock: Any, archive: IO[bytes]) -> None:
    """Write ``archive`` to the exec's stdin (a native socket) and half-close it; an early exit of the reader
    (a closed pipe) ends the writing quietly."""
    loop = asyncio.get_running_loop()
    try:
        archive.seek(0)
        while chunk := archive.read(1 << 20):
            await loop.sock_sendall(sock, chunk)
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass
