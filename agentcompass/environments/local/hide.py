"""Hiding host paths from a local environment's commands (``hide_host_paths``): its supervisor enters a mount
namespace of its own before it starts anything, where

- each private path (the benchmark's task directories: tests, solutions) is covered by an empty read-only tmpfs;
- the directory of the local workspaces is covered the same way, its own workspace bound back into place, so no
  other attempt's workspace (its tests while they run) is there to read;
- the command lines and environments of the owning process and its ancestors (``/proc/<pid>/cmdline`` and
  ``environ``: an ``agentcompass run --benchmark-params '{"dataset_path": ...}'``) read as empty.

Every command the supervisor starts inherits that namespace; the owning process (which uploads the tests and the
solution into the workspace) keeps the host's view. It needs the right to make a mount namespace (root, or
CAP_SYS_ADMIN); without it nothing is hidden and the reason is reported. Standard library only (imported by the
supervisor as a plain module, like :mod:`.proctree`).
"""

from __future__ import annotations

import ctypes
import os

CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
_EMPTY = MS_NOSUID | MS_NODEV | MS_NOEXEC


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _mount(libc: ctypes.CDLL, src: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    enc = lambda s: s.encode() if s else None  # noqa: E731
    if libc.mount(enc(src), enc(target), enc(fstype), flags, enc(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {target}: {os.strerror(err)}")


def _cover(libc: ctypes.CDLL, path: str) -> None:
    """An empty, read-only tmpfs over directory ``path``."""
    _mount(libc, "tmpfs", path, "tmpfs", MS_RDONLY | _EMPTY, "size=4k,mode=0555")


def _cover_but(libc: ctypes.CDLL, parent: str, keep: str) -> None:
    """An empty tmpfs over ``parent`` with ``keep`` (a directory right under it) bound back into place."""
    fd = os.open(keep, os.O_PATH | os.O_DIRECTORY)
    try:
        _mount(libc, "tmpfs", parent, "tmpfs", _EMPTY, "size=16k,mode=0755")
        os.mkdir(os.path.join(parent, os.path.basename(keep)), 0o700)
        _mount(libc, f"/proc/self/fd/{fd}", keep, None, MS_BIND | MS_REC)
        _mount(libc, None, parent, None, MS_REMOUNT | MS_RDONLY | _EMPTY, "size=16k,mode=0755")
    finally:
        os.close(fd)


def ancestors(pid: int) -> list[int]:
    """``pid`` and its ancestors up to (not including) init."""
    out = []
    while pid > 1:
        out.append(pid)
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                pid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            break
    return out


def hide(spec: dict) -> tuple[list[str], str]:
    """Enter a new mount namespace and hide what ``spec`` names (``paths``, but none that holds or is held by
    ``workspace`` or a ``spare`` path; the other workspaces beside ``workspace``; the command lines of ``pids``):
    the paths hidden, and "" or why not (then nothing, or only those listed, is hidden)."""
    libc = _libc()
    if libc.unshare(CLONE_NEWNS) != 0:
        return [], f"cannot make a mount namespace: {os.strerror(ctypes.get_errno())}"
    hidden: list[str] = []
    try:
        _mount(libc, None, "/", None, MS_REC | MS_PRIVATE)
        workspace = os.path.realpath(spec.get("workspace") or "")
        spared = [workspace, *(os.path.realpath(p) for p in spec.get("spare") or [])]
        for path in spec.get("paths") or []:
            real = os.path.realpath(path)
            if os.path.isdir(real) and not any(_related(real, s) for s in spared):
                _cover(libc, real)
                hidden.append(real)
        if workspace and os.path.isdir(workspace):
            _cover_but(libc, os.path.dirname(workspace), workspace)
            hidden.append(os.path.dirname(workspace) + "/*")
        for pid in spec.get("pids") or []:
            for name in ("cmdline", "environ"):
                _mount(libc, "/dev/null", f"/proc/{pid}/{name}", None, MS_BIND)
            hidden.append(f"/proc/{pid}/cmdline")
    except OSError as exc:
        return hidden, str(exc)
    return hidden, ""


def _related(a: str, b: str) -> bool:
    """One of the two directories contains the other (covering it would hide the workspace)."""
    return bool(b) and (a == b or b.startswith(a.rstrip("/") + "/") or a.startswith(b.rstrip("/") + "/"))
