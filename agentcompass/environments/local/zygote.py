"""The zygote of the local environments' supervisors: one small process per owning process, which forks a new
supervisor (:mod:`.supervisor`) for every local environment.

A supervisor forked from a process that has already started (``python -E -s -S``, the standard library loaded,
ctypes too) costs a ``fork``, not an interpreter start-up: about a millisecond of CPU instead of some 30. The
zygote is a child subreaper itself: when a supervisor dies before its time (killed), its orphans come to the
zygote, which kills them (it knows which of its children are supervisors).

Run as ``python -E -s -S zygote.py FD``. Protocol on the stream socket FD, framed as the supervisor's:

- in: ``{"op": "fork", "cgroup", "hide"}`` with one file descriptor attached, the new supervisor's socket;
- out: ``{"op": "forked", "pid"}`` (the supervisor then says ``ready`` on its own socket).

End of file on FD (the owning process ended, however): the zygote exits; its supervisors see the end of their
own sockets and end their environments' processes.
"""

from __future__ import annotations

import marshal
import os
import select
import signal
import socket
import struct
import sys

try:
    from agentcompass.environments.local import supervisor
    from agentcompass.environments.local.proctree import drain, kill_descendants, set_subreaper, wake_pipe
except ImportError:  # run as a script, without the package (-S); this file's directory comes first
    import supervisor  # type: ignore[no-redef]
    from proctree import drain, kill_descendants, set_subreaper, wake_pipe  # type: ignore[no-redef]

_HEADER = struct.Struct(">I")


class Zygote:
    def __init__(self, sock: socket.socket, wake: tuple[int, int]) -> None:
        self.sock, self.wake = sock, wake
        self.buf = b""
        self.fds: list[int] = []
        self.supervisors: set[int] = set()

    def send(self, msg: dict) -> None:
        data = marshal.dumps(msg)
        self.sock.sendall(_HEADER.pack(len(data)) + data)

    def fork(self, msg: dict, fd: int) -> None:
        pid = os.fork()
        if pid == 0:  # the new supervisor: nothing of the zygote's but the code
            code = 1
            try:
                signal.set_wakeup_fd(-1)
                for own in (self.sock.fileno(), *self.wake):
                    os.close(own)
                os.setsid()
                code = supervisor.supervise(fd, msg.get("cgroup") or "", msg.get("hide"))
            finally:
                os._exit(code)
        os.close(fd)
        self.supervisors.add(pid)
        self.send({"op": "forked", "pid": pid})

    def reap(self) -> None:
        lost = False
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if pid in self.supervisors:
                self.supervisors.discard(pid)
                lost = lost or status != 0  # killed, or it left processes: their orphans may be ours now
        if lost:  # adopted orphans of a dead supervisor: end them (live supervisors' trees are spared)
            kill_descendants(os.getpid(), None, skip=lambda: frozenset(self.supervisors))
            self.reap()

    def receive(self) -> bool:
        """Read what came; False at the end of the socket."""
        try:
            data, ancillary, _flags, _addr = self.sock.recvmsg(1 << 16, socket.CMSG_SPACE(16), socket.MSG_CMSG_CLOEXEC)
        except InterruptedError:
            return True
        except OSError:
            return False
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                self.fds += list(struct.unpack(f"{len(payload) // 4}i", payload[: len(payload) // 4 * 4]))
        if not data:
            return False
        self.buf += data
        while len(self.buf) >= 4 and len(self.buf) >= 4 + _HEADER.unpack_from(self.buf)[0]:
            size = _HEADER.unpack_from(self.buf)[0]
            msg, self.buf = marshal.loads(self.buf[4 : 4 + size]), self.buf[4 + size :]
            if msg.get("op") == "fork" and self.fds:
                self.fork(msg, self.fds.pop(0))
        return True


def main(argv: list[str]) -> int:
    fd = int(argv[1])
    os.set_inheritable(fd, False)
    set_subreaper()
    wake = wake_pipe()
    zygote = Zygote(socket.socket(fileno=fd), wake)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: None)
    signal.set_wakeup_fd(wake[1])
    while True:
        try:
            ready, _, _ = select.select([zygote.sock, wake[0]], [], [])
        except InterruptedError:
            continue
        if wake[0] in ready:
            drain(wake[0])
            zygote.reap()
        if zygote.sock in ready and not zygote.receive():
            return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
