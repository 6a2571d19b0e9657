"""The supervisor of one local environment: the parent of every command, and a child subreaper.

Forked by the zygote (:mod:`.zygote`), one per local environment. It marks itself a *child subreaper*
(``prctl(PR_SET_CHILD_SUBREAPER)``): a process that leaves its parent (double fork, ``setsid``, ``env -i``, a
renamed command line) is re-parented to the supervisor instead of to init, so every process the environment ever
started stays a descendant of it, whatever it does to its session, environment or name. When a cgroup directory
is given, the supervisor moves itself into it first, so every descendant is in that cgroup too. Standard library
only (the zygote runs with ``-S``): it imports :mod:`.proctree` as a plain module when not in the package.

Protocol on its stream socket, each message a 4-byte big-endian length and a dict in ``marshal``'s format (both
ends run the same interpreter; ``json`` would cost its import, ``re`` included):

- out first: ``{"op": "ready", "pid", "cgroup_error", "hidden", "hide_error"}`` (``hidden``: the host paths it
  hid from its commands, :mod:`.hide`);
- in: ``{"op": "spawn", "id", "argv", "cwd", "env"}`` with two file descriptors attached (SCM_RIGHTS: the
  command's stdout and stderr); the command runs in a session of its own, stdin ``/dev/null``;
- out: ``{"op": "started", "id", "pid"}``, or ``{"op": "failed", "id", "error"}`` when it could not be run,
  then ``{"op": "exit", "id", "status"}`` (a raw wait status) when it ends;
- in: ``{"op": "end"}``: every descendant is killed as below, the supervisor goes on; out: ``{"op": "ended",
  "ended": [command lines], "left": [pids]}``;
- end of file on the socket (the environment closes, or its process died, even by SIGKILL) or SIGTERM: every
  descendant is killed (SIGKILL, scanning ``/proc`` again until none is left, so a respawning loop cannot outrun
  it) and reaped; out: ``{"op": "bye", "left": [pids]}`` (empty: none is left), then it exits.
"""

from __future__ import annotations

import marshal
import os
import select
import signal
import socket
import struct
import subprocess

try:
    from agentcompass.environments.local.hide import hide
    from agentcompass.environments.local.proctree import (
        command_lines,
        descendants,
        drain,
        kill_descendants,
        set_subreaper,
        wake_pipe,
    )
except ImportError:  # forked by the zygote, which runs without the package (-S)
    from hide import hide  # type: ignore[no-redef]
    from proctree import (  # type: ignore[no-redef]
        command_lines,
        descendants,
        drain,
        kill_descendants,
        set_subreaper,
        wake_pipe,
    )

_HEADER = struct.Struct(">I")
_MAX_FDS = 16


# --------------------------------------------------------------------------- commands


def spawn(req: dict, fds: list[int]) -> tuple[subprocess.Popen | None, str]:
    """Start one command (``subprocess``'s vfork + exec: the fastest way from Python) in a session of its own,
    with default signal dispositions; (process, "") once it runs, (None, why) when it could not be run."""
    out, err = fds
    try:
        proc = subprocess.Popen(
            req["argv"],
            cwd=req["cwd"],
            env=req["env"],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        return None, str(exc)
    finally:
        os.close(out)
        os.close(err)
    return proc, ""


# --------------------------------------------------------------------------- the loop


class Supervisor:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""
        self.fds: list[int] = []
        self.running: dict[int, tuple[object, subprocess.Popen]] = {}  # pid -> (request id, process)
        self.stop = False

    def send(self, msg: dict) -> None:
        data = marshal.dumps(msg)
        try:
            self.sock.sendall(_HEADER.pack(len(data)) + data)
        except OSError:
            self.stop = True  # the environment is gone: end everything

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            ident, proc = self.running.pop(pid, (None, None))
            if proc is not None:
                proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: subprocess must not wait
                self.send({"op": "exit", "id": ident, "status": status})

    def receive(self) -> None:
        try:
            # close-on-exec at once: a command forked before these are used must not inherit them
            data, ancillary, _flags, _addr = self.sock.recvmsg(
                1 << 16, socket.CMSG_SPACE(_MAX_FDS * 4), socket.MSG_CMSG_CLOEXEC
            )
        except InterruptedError:
            return
        except OSError:
            data, ancillary = b"", []
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                usable = len(payload) - len(payload) % 4
                self.fds += list(struct.unpack(f"{usable // 4}i", payload[:usable]))
        if not data:
            self.stop = True
            return
        self.buf += data
        while len(self.buf) >= 4:
            (size,) = _HEADER.unpack_from(self.buf)
            if len(self.buf) < 4 + size:
                break
            msg, self.buf = marshal.loads(self.buf[4 : 4 + size]), self.buf[4 + size :]
            self.handle(msg)

    def handle(self, msg: dict) -> None:
        if msg.get("op") == "end":
            ended = command_lines(descendants(os.getpid()))
            left = kill_descendants(os.getpid(), self.reap)
            self.send({"op": "ended", "ended": ended, "left": left})
            return
        if msg.get("op") != "spawn":
            return
        fds, self.fds = self.fds[:2], self.fds[2:]
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            self.send({"op": "failed", "id": msg.get("id"), "error": "no output pipes received"})
            return
        proc, why = spawn(msg, fds)
        if proc is None:
            self.send({"op": "failed", "id": msg["id"], "error": why})
        else:
            self.running[proc.pid] = (msg["id"], proc)
            self.send({"op": "started", "id": msg["id"], "pid": proc.pid})

    def loop(self, wake: int) -> None:
        while not self.stop:
            try:
                ready, _, _ = select.select([self.sock, wake], [], [])
            except InterruptedError:
                continue
            if wake in ready:
                drain(wake)
                self.reap()
            if self.sock in ready:
                self.receive()


def _join_cgroup(path: str) -> str:
    """Move this process into cgroup ``path`` (its commands are then born there); "" or why it could not."""
    if not path:
        return ""
    try:
        with open(os.path.join(path, "cgroup.procs"), "w") as f:
            f.write("0")
    except OSError as exc:
        return f"cannot join cgroup {path}: {exc}"
    return ""


def supervise(fd: int, cgroup: str, hiding: dict | None = None) -> int:
    """Be the supervisor on socket ``fd`` (in ``cgroup`` when given) until the end of the environment; the exit
    code: 0 when no process is left, 2 when it could not become a subreaper, 3 when processes survived."""
    os.set_inheritable(fd, False)  # commands must not hold (or talk on) the socket
    sup = Supervisor(socket.socket(fileno=fd))
    cgroup_error = _join_cgroup(cgroup)
    hidden, hide_error = hide(hiding) if hiding else ([], "")
    try:
        set_subreaper()
    except OSError as exc:
        sup.send({"op": "failed", "id": -1, "error": f"{exc}"})
        return 2
    wake_r, wake_w = wake_pipe()
    # handled, not ignored: an ignored signal would stay ignored in the commands
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: setattr(sup, "stop", True))
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    sup.send(
        {"op": "ready", "pid": os.getpid(), "cgroup_error": cgroup_error, "hidden": hidden, "hide_error": hide_error}
    )
    sup.loop(wake_r)
    left = kill_descendants(os.getpid(), sup.reap)
    sup.send({"op": "bye", "left": left})
    return 3 if left else 0
