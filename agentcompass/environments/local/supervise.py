"""The local environment's side of its supervisor (:mod:`.supervisor`): start it, spawn commands through it,
learn their exits, and stop it (which ends every process the environment started).

One :class:`SupervisedProcesses` per local environment, started at its first command. Commands are forked by the
supervisor, so they and everything they start descend from it; their output pipes are created here and passed
over the socket (SCM_RIGHTS), so reading output costs what it cost before.
"""

from __future__ import annotations

import asyncio
import logging
import marshal
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcompass.errors import SandboxError

if TYPE_CHECKING:
    from agentcompass.environments.local.shapes import HideSpec, SupervisorMessage

log = logging.getLogger("agentcompass.environments.local")

_ZYGOTE = Path(__file__).with_name("zygote.py")
_HEADER = struct.Struct(">I")
STOP_TIMEOUT_S = 30.0  # the supervisor kills for at most 20 s; past this it is killed itself


class _ZygoteClient:
    """This process's zygote (:mod:`.zygote`), started at the first local environment; a new one when it is
    gone (or this is a forked child of the process that started it)."""

    lock = threading.Lock()
    current: _ZygoteClient | None = None

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-E", "-s", "-S", str(_ZYGOTE), str(theirs.fileno())],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            )
        except OSError:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.settimeout(30)
        self.sock, self.owner, self.buf = ours, os.getpid(), b""

    def fork(self, fd: int, cgroup: str, hide: HideSpec | None = None) -> int:
        data = marshal.dumps({"op": "fork", "cgroup": cgroup, "hide": hide})
        self.sock.sendmsg(
            [_HEADER.pack(len(data)) + data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", fd))]
        )
        while len(self.buf) < 4 or len(self.buf) < 4 + _HEADER.unpack_from(self.buf)[0]:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the zygote of the local environments ended")
            self.buf += chunk
        size = _HEADER.unpack_from(self.buf)[0]
        reply, self.buf = marshal.loads(self.buf[4 : 4 + size]), self.buf[4 + size :]
        return int(reply["pid"])


def zygote_fork(fd: int, cgroup: str, hide: HideSpec | None = None) -> int:
    """A new supervisor on socket ``fd`` (in ``cgroup``), forked by this process's zygote: its pid. Blocking."""
    with _ZygoteClient.lock:
        for fresh in (False, True):
            client = _ZygoteClient.current
            if fresh or client is None or client.owner != os.getpid() or client.proc.poll() is not None:
                client = _ZygoteClient.current = _ZygoteClient()
            try:
                return client.fork(fd, cgroup, hide)
            except OSError:
                if fresh:
                    raise
        raise AssertionError("unreachable")


@dataclass
class Spawned:
    """A command the supervisor started: its pid (also its process group) and the future of its wait status."""

    pid: int
    status: asyncio.Future[int]


class SupervisedProcesses:
    """The supervisor of one environment, seen from the process that owns the environment."""

    def __init__(self, label: str, cgroup: str | None = None, hide: HideSpec | None = None) -> None:
        self.label = label  # for messages: the workspace
        self.cgroup = cgroup
        self.hide = hide  # what its commands must not see (:mod:`.hide`); None: nothing hidden
        self.hidden: list[str] = []
        self.hide_error = ""
        self.pid = 0  # the supervisor's
        self.sock: socket.socket | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.lost = ""  # why the supervisor is gone before its time ("" while it runs)
        self.cgroup_error = ""  # why the supervisor could not join the cgroup it was given
        self._sending = asyncio.Lock()
        self._reading = False
        self._buf = b""
        self._next = 0
        self._pending: dict[int, asyncio.Future[Any]] = {}  # request id -> started (pid) / failed
        self._exits: dict[int, asyncio.Future[int]] = {}  # request id -> wait status
        self._abandoned: set[int] = set()  # request ids whose caller went away before "started"

    # ------------------------------------------------------------------ start / stop
    async def start(self) -> None:
        """Have the zygote fork the supervisor, and wait for its ``ready``."""
        self.loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.pid = await asyncio.to_thread(zygote_fork, theirs.fileno(), self.cgroup or "", self.hide)
        except OSError as exc:
            ours.close()
            raise SandboxError(f"local environment {self.label}: cannot start its supervisor: {exc}") from exc
        finally:
            theirs.close()
        ours.setblocking(False)
        self.sock = ours
        ready = self.loop.create_future()
        self._pending[-1] = ready
        self.loop.add_reader(ours.fileno(), self._readable)
        self._reading = True
        try:
            await asyncio.wait_for(ready, 30)
        except (TimeoutError, OSError, SandboxError) as exc:
            await self.stop()
            raise SandboxError(f"local environment {self.label}: its supervisor did not start: {exc}") from None

    async def stop(self) -> list[int] | None:
        """End the supervisor, which kills every descendant first: the pids it could not end (empty: none
        left), or None when it did not say (it had to be killed itself, or was gone)."""
        if self.sock is None:
            return None if self.lost else []
        if self._reading and self.loop is not None and self.loop is not asyncio.get_running_loop():
            self.loop.call_soon_threadsafe(self._drop_reader)  # read by a loop of another thread
            await asyncio.sleep(0.05)
        self._drop_reader()
        self._fail("its supervisor is stopped (the environment is closing)", lost=False)
        return await asyncio.to_thread(self._goodbye)

    def _goodbye(self) -> list[int] | None:
        """The blocking part of :meth:`stop` (in a thread): half-close the socket, which the supervisor reads as
        the end, and read its last messages up to ``bye``."""
        sock, self.sock = self.sock, None
        assert sock is not None
        left = None
        try:
            sock.setblocking(True)
            sock.settimeout(STOP_TIMEOUT_S)
            sock.shutdown(socket.SHUT_WR)
            while chunk := sock.recv(1 << 16):
                self._buf += chunk
            left = next((m["left"] for m in _frames(self) if m.get("op") == "bye"), None)
        except OSError as exc:  # the supervisor does not answer: kill it (its orphans go to the zygote)
            log.warning("local environment %s: its supervisor did not finish: %s", self.label, exc)
            if self.pid:
                kill_group(self.pid)
        finally:
            sock.close()
        return left

    def _drop_reader(self) -> None:
        """Stop reading the socket (in the loop's thread)."""
        if self._reading and self.loop is not None and self.sock is not None and not self.loop.is_closed():
            self.loop.remove_reader(self.sock.fileno())
        self._reading = False

    # ------------------------------------------------------------------ commands
    async def spawn(self, argv: list[str], cwd: str, env: dict[str, str], out: int, err: int) -> Spawned:
        """Run ``argv`` through the supervisor with ``out`` / ``err`` as its stdout / stderr (closed here once
        sent). OSError when it could not be run (as the direct exec would); SandboxError when the supervisor is
        gone."""
        if self.sock is None or self.lost:
            os.close(out)
            os.close(err)
            raise SandboxError(f"local environment {self.label}: {self.lost or 'its supervisor is stopped'}")
        assert self.loop is not None
        ident = self._next = self._next + 1
        started: asyncio.Future[Any] = self.loop.create_future()
        self._pending[ident] = started
        exited: asyncio.Future[int] = self.loop.create_future()
        self._exits[ident] = exited
        data = marshal.dumps({"op": "spawn", "id": ident, "argv": argv, "cwd": cwd, "env": env})
        try:
            async with self._sending:
                await self._send(_HEADER.pack(len(data)) + data, [out, err])
        finally:
            os.close(out)
            os.close(err)
        try:
            pid = await asyncio.shield(started)
        except asyncio.CancelledError:
            self._abandoned.add(ident)
            raise
        return Spawned(pid, exited)

    async def end_all(self) -> list[str]:
        """Have the supervisor kill every process it started and their descendants (it goes on running): the
        command lines of those ended. SandboxError when it is gone, or when some survived."""
        if self.sock is None or self.lost:
            raise SandboxError(f"local environment {self.label}: {self.lost or 'its supervisor is stopped'}")
        assert self.loop is not None
        ended: asyncio.Future[Any] = self.loop.create_future()
        self._pending[-2] = ended
        data = marshal.dumps({"op": "end"})
        async with self._sending:
            await self._send(_HEADER.pack(len(data)) + data, [])
        reply = await ended
        if reply.get("left"):
            raise SandboxError(f"local environment {self.label}: processes {reply['left']} survived the end of all")
        return list(reply.get("ended") or [])

    async def _send(self, data: bytes, fds: list[int]) -> None:
        assert self.sock is not None and self.loop is not None
        sock, loop = self.sock, self.loop
        while True:
            try:
                rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack(f"{len(fds)}i", *fds))] if fds else []
                sent = sock.sendmsg([data], rights)
                break
            except (BlockingIOError, InterruptedError):
                writable: asyncio.Future[None] = loop.create_future()
                loop.add_writer(sock.fileno(), _settle_once, writable)
                try:
                    await writable
                finally:
                    loop.remove_writer(sock.fileno())
            except OSError as exc:
                self._fail(f"its supervisor is gone ({exc})")
                raise SandboxError(f"local environment {self.label}: {self.lost}") from exc
        if sent < len(data):
            await loop.sock_sendall(sock, data[sent:])

    # ------------------------------------------------------------------ replies
    def _readable(self) -> None:
        assert self.sock is not None
        try:
            data = self.sock.recv(1 << 16)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._drop_reader()
            self._fail("its supervisor ended unexpectedly (killed?); its commands' exits are unknown")
            return
        self._buf += data
        for msg in _frames(self):
            self._dispatch(msg)

    def _dispatch(self, msg: SupervisorMessage) -> None:
        op, ident = msg.get("op"), msg.get("id", -1)
        if op == "ready":
            self.cgroup_error = msg.get("cgroup_error") or ""
            self.hidden, self.hide_error = list(msg.get("hidden") or []), msg.get("hide_error") or ""
            self._settle(self._pending.pop(-1, None), msg.get("pid"))
        elif op == "ended":
            self._settle(self._pending.pop(-2, None), msg)
        elif op == "started":
            self._settle(self._pending.pop(ident, None), msg["pid"])
            if ident in self._abandoned:  # its caller was cancelled while it started: end it now
                self._abandoned.discard(ident)
                kill_group(msg["pid"])
        elif op == "failed":
            self._exits.pop(ident, None)
            future = self._pending.pop(ident, None)
            if future is not None and not future.done():
                future.set_exception(OSError(msg.get("error") or "cannot run"))
        elif op == "exit":
            self._settle(self._exits.pop(ident, None), msg["status"])

    @staticmethod
    def _settle(future: asyncio.Future[Any] | None, value: Any) -> None:
        if future is not None and not future.done():
            future.set_result(value)

    def _fail(self, why: str, lost: bool = True) -> None:
        if lost:
            self.lost = self.lost or why
        error = SandboxError(f"local environment {self.label}: {self.lost or why}")
        for future in [*self._pending.values(), *self._exits.values()]:
            if not future.done():
                future.set_exception(error)
                future.exception()  # retrieved: a waiter that went away must not log it
        self._pending.clear()
        self._exits.clear()


def _frames(sup: SupervisedProcesses) -> list[SupervisorMessage]:
    """The whole messages in ``sup``'s buffer (taken out of it)."""
    out = []
    while len(sup._buf) >= 4 and len(sup._buf) >= 4 + _HEADER.unpack_from(sup._buf)[0]:
        size = _HEADER.unpack_from(sup._buf)[0]
        out.append(marshal.loads(sup._buf[4 : 4 + size]))
        sup._buf = sup._buf[4 + size :]
    return out


def _settle_once(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
