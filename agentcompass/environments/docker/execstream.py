"""Pieces of ``exec`` in a container: the wrapper, the process-tree kill, and the multiplexed output stream.

Every command runs as ``sh -c WRAPPER ac <cwd> <argv...>`` with ``AGENTCOMPASS_EXEC=<token>`` in its
environment. Docker starts an exec process as a session and process-group leader, so the command and
everything it starts in the background share its process group. On timeout or cancellation
:data:`KILL_SCRIPT` (a second exec) SIGKILLs the process group of every process carrying the token, and
every such process itself (that also catches children that left the group with ``setsid``).

The exit code travels in-band: the wrapper waits for the command and then writes a report
``\\x01ac:<token>:<code>\\x02`` to stderr, which :class:`ExitTrailer` takes out of the stream (no
``exec_inspect`` round trip per command); before it, ``oom<N>`` when the kernel has killed N processes of the
container at its memory limit so far. When no report arrives (the wrapper itself was killed), the caller
asks the engine.
"""

from __future__ import annotations

import asyncio
import re
import socket
import ssl
import struct
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from agentcompass.environments._capture import HeadTail  # noqa: F401 (re-exported)

TOKEN_VAR = "AGENTCOMPASS_EXEC"
_REPORT = re.compile(rb"-?[0-9]{1,12}|[a-z][a-z0-9]{0,15}")
_REPORT_START = re.compile(rb"-?[0-9]{0,12}|([a-z][a-z0-9]{0,15})?")

# the container's count of processes the kernel killed at its memory limit (cgroup v2, then v1), reported as the
# word "oom<N>" when not 0: shell built-ins only, so it costs no process
OOM_REPORT = (
    "for ac_f in /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control; do "
    '[ -r "$ac_f" ] || continue; while read -r ac_k ac_v; do [ "$ac_k" = oom_kill ] && [ "$ac_v" != 0 ] && '
    f'printf \'\\001ac:%s:oom%s\\002\' "${TOKEN_VAR}" "$ac_v" >&2; done < "$ac_f"; break; done; '
)
OOM_WORD = "oom"

WRAPPER = (
    'ac_rc=0; cd -- "$1" 2>/dev/null || { echo "cwd $1 does not exist" >&2; ac_rc=126; }; shift; '
    'if [ "$ac_rc" = 0 ]; then "$@"; ac_rc=$?; fi; '
    + OOM_REPORT
    + f'printf \'\\001ac:%s:%d\\002\' "${TOKEN_VAR}" "$ac_rc" >&2; exit "$ac_rc"'
)

KILL_SCRIPT = r"""
t="AGENTCOMPASS_EXEC=$1"
for round in 1 2; do
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    tr '\0' '\n' < "$d/environ" 2>/dev/null | grep -qx -- "$t" || continue
    read -r s < "$d/stat" 2>/dev/null || continue
    s=${s##*) }
    set -- $s
    kill -9 "-$3" "$p" 2>/dev/null
  done
done
exit 0
"""


class ExitTrailer:
    """Feeds a stderr stream to ``sink`` without the wrapper's in-band reports ``\\x01ac:<token>:<value>\\x02``.

    A number is the exit code (kept as ``code``); a word (the report of what was staged, see :mod:`.staging`) goes
    to ``on_word``. Reports may arrive split over frames, and output written after
    one (a background process still holding stderr) is passed on. Bytes that may start a report are held back until
    it is known they do not.
    """

    def __init__(self, sink: Any, token: str, on_word: Callable[[str], None] | None = None) -> None:
        self.sink, self.prefix, self.on_word = sink, b"\x01ac:" + token.encode() + b":", on_word
        self.code: int | None = None
        self.pending = b""

    def feed(self, data: bytes) -> None:
        buf = self.pending + data
        self.pending = b""
        while buf:
            i = buf.find(self.prefix)
            if i < 0:
                keep = _partial_prefix(buf, self.prefix)
                self.sink.feed(buf[: len(buf) - keep])
                self.pending = buf[len(buf) - keep :]
                return
            end = buf.find(b"\x02", i + len(self.prefix))
            value = buf[i + len(self.prefix) : end if end >= 0 else len(buf)]
            pattern = _REPORT if end >= 0 else _REPORT_START  # a whole report, or the start of one
            if not pattern.fullmatch(value):
                self.sink.feed(buf[: i + 1])  # not a report after all: pass its first byte on, look again
                buf = buf[i + 1 :]
                continue
            self.sink.feed(buf[:i])
            if end < 0:
                self.pending = buf[i:]
                return
            self._report(value.decode())
            buf = buf[end + 1 :]

    def _report(self, value: str) -> None:
        if value.lstrip("-").isdigit():
            self.code = int(value)
        elif self.on_word is not None:
            self.on_word(value)

    def close(self) -> None:
        """The stream ended: bytes held back were output after all."""
        if self.pending:
            self.sink.feed(self.pending)
            self.pending = b""


def _partial_prefix(buf: bytes, prefix: bytes) -> int:
    """Length of the longest end of ``buf`` that is a beginning of ``prefix`` (shorter than ``prefix``)."""
    for n in range(min(len(buf), len(prefix) - 1), 0, -1):
        if buf.endswith(prefix[:n]):
            return n
    return 0


class FrameReader:
    """Reads Docker's multiplexed stream (8-byte headers: stream id, 3 zero bytes, big-endian size).

    Unix and plain TCP sockets are read by the event loop; other transports (TLS, ssh) by a thread.
    """

    def __init__(self, sock: Any, pool: Executor) -> None:
        self.sock = sock
        self.raw = getattr(sock, "_sock", sock)
        self.pool = pool
        self.native = isinstance(self.raw, socket.socket) and not isinstance(self.raw, ssl.SSLSocket)
        self.fp = _buffered_reader(sock)
        self.buf = bytearray()
        if self.native:
            self.raw.setblocking(False)
            self.buf += _read_ahead(self.fp)

    async def _recv(self) -> bytes:
        loop = asyncio.get_running_loop()
        if self.native:
            return await loop.sock_recv(self.raw, 65536)
        reader = getattr(self.fp, "read1", None) or getattr(self.sock, "recv", None) or self.sock.read
        return await loop.run_in_executor(self.pool, reader, 65536)

    async def pump(self, out: Any, err: Any, until: Callable[[], bool] | None = None) -> None:
        """Read frames until the stream ends (or ``until()`` holds after the frames at hand), feeding stdout (1)
        and stderr (2)."""
        while True:
            while len(self.buf) >= 8:  # first what was read ahead, then each chunk
                kind, size = struct.unpack(">BxxxL", self.buf[:8])
                if len(self.buf) < 8 + size:
                    break
                payload = bytes(self.buf[8 : 8 + size])
                del self.buf[: 8 + size]
                (err if kind == 2 else out).feed(payload)
            if until is not None and until():
                return
            chunk = await self._recv()
            if not chunk:
                return
            self.buf += chunk

    def close(self) -> None:
        for obj in (self.raw, self.sock):
            try:
                obj.close()
            except Exception:
                pass


def _buffered_reader(sock: Any) -> Any:
    """The HTTP client's buffered reader over ``sock`` (docker-py's ``sock._response``), or None.

    docker-py hands out the socket under that reader, so what the reader took past the engine's reply headers
    (often all the output of a quick command, when both arrive in one read) is in its buffer, not on the socket."""
    response = getattr(sock, "_response", None)
    return getattr(getattr(getattr(response, "raw", None), "_fp", None), "fp", None)


def _read_ahead(fp: Any) -> bytes:
    """The bytes ``fp`` already buffered, taken out of it; its socket must be non-blocking (no wait here)."""
    if fp is None or not hasattr(fp, "peek"):
        return b""
    try:
        ahead = fp.peek(65536)
        return fp.read(len(ahead)) if ahead else b""
    except (BlockingIOError, ValueError, OSError):
        return b""
