"""The supervisor of one local environment: the parent of every command, and a child subreaper.

Run as a script (``python -I -S _supervisor.py FD [CGROUP]``; standard library only, so it starts in a few
milliseconds) by :mod:`._supervise`, one per local environment. It marks itself a *child subreaper*
(``prctl(PR_SET_CHILD_SUBREAPER)``): a process that leaves its parent (double fork, ``setsid``, ``env -i``, a
renamed command line) is re-parented to the supervisor instead of to init, so every process the environment ever
started stays a descendant of it, whatever it does to its session, environment or name. When a cgroup directory
is given, the supervisor moves itself into it first, so every descendant is in that cgroup too.

Protocol on the inherited stream socket FD, each message a 4-byte big-endian length and a dict in
``marshal``'s format (both ends run the same interpreter; ``json`` would cost its import, ``re`` included):

- in: ``{"op": "spawn", "id", "argv", "cwd", "env"}`` with two file descriptors attached (SCM_RIGHTS: the
  command's stdout and stderr); the command runs in a session of its own, stdin ``/dev/null``;
- out: ``{"op": "started", "id", "pid"}``, or ``{"op": "failed", "id", "error"}`` when it could not be run,
  then ``{"op": "exit", "id", "status"}`` (a raw wait status) when it ends.

End of file on the socket (the environment closes, or its process died, even by SIGKILL) or SIGTERM: every
descendant is killed (SIGKILL, scanning ``/proc`` again until none is left, so a respawning loop cannot outrun
it) and reaped, then the supervisor exits: 0 when none is left, 3 otherwise. Terminal signals never reach it (it
leads a session of its own).
"""

from __future__ import annotations

import marshal
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
_HEADER = struct.Struct(">I")
_MAX_FDS = 16
KILL_DEADLINE_S = 20.0  # the longest the final kill may take before the supervisor gives up (exit 3)


def set_subreaper() -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


# --------------------------------------------------------------------------- the process tree


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, ppid) of ``pid`` from ``/proc/<pid>/stat``; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0].decode(), int(fields[1])


def descendants(root: int) -> dict[int, str]:
    """Every descendant of ``root`` (pid -> state letter), from one scan of ``/proc``."""
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
            if pid not in found:
                found[pid] = state
                todo.append(pid)
    return found


def kill_descendants(root: int, reap: object = None, deadline_s: float = KILL_DEADLINE_S) -> list[int]:
    """SIGKILL every descendant of ``root``, scanning again until a scan finds none alive and none unreaped
    (``reap``, when given, is called after each round to collect the supervisor's own zombies). Returns the
    pids still there at the deadline (empty: all gone)."""
    end = time.monotonic() + deadline_s
    pause = 0.0
    while True:
        found = descendants(root)
        for pid, state in found.items():
            if state != "Z":
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        if callable(reap):
            reap()
        if not found:
            return []
        if time.monotonic() > end:
            return sorted(found)
        pause = min(0.05, pause + 0.002)  # zombies wait for their parents' death to come to us
        time.sleep(pause)


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
                while True:
                    try:
                        if not os.read(wake, 512):
                            break
                    except (BlockingIOError, InterruptedError):
                        break
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


def main(argv: list[str]) -> int:
    fd = int(argv[1])
    os.set_inheritable(fd, False)  # commands must not hold (or talk on) the socket
    sock = socket.socket(fileno=fd)
    sup = Supervisor(sock)
    cgroup_error = _join_cgroup(argv[2] if len(argv) > 2 else "")
    try:
        set_subreaper()
    except OSError as exc:
        sup.send({"op": "failed", "id": -1, "error": f"{exc}"})
        return 2
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    # handled, not ignored: an ignored signal would stay ignored in the commands
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: setattr(sup, "stop", True))
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    sup.send({"op": "ready", "pid": os.getpid(), "cgroup_error": cgroup_error})
    sup.loop(wake_r)
    return 3 if kill_descendants(os.getpid(), sup.reap) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
