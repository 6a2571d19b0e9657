"""File operations that cannot leave a directory tree, even when its contents change under them.

Every path is resolved one component at a time from directory file descriptors with ``O_NOFOLLOW``
(``openat``-style), so a symlink (or a symlink swapped in while the operation runs) is never followed by the
kernel. A symlink met on the way is read and resolved here: it is followed only while its target stays inside
the root (an absolute target must name a path under the root's host path; a relative one may not climb above
it). Anything else raises :class:`PathEscapeError`. Copies out of the tree use :func:`os.fwalk`, which is
designed to be safe against symlink races, and recreate symlinks as links instead of following them.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from agentcompass.errors import PathEscapeError

MAX_LINKS = 40
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _parts(rel: str) -> list[str]:
    return [p for p in rel.split("/") if p not in ("", ".")]


class _Walk:
    """The directory fds from the root down to the current directory (``..`` pops one)."""

    def __init__(self, root: Path, original: str) -> None:
        self.root, self.original = root, original
        self.stack = [os.open(root, _DIR_FLAGS)]
        self.links = 0

    @property
    def fd(self) -> int:
        return self.stack[-1]

    def close(self) -> None:
        for fd in self.stack:
            os.close(fd)
        self.stack = []

    def escape(self, why: str) -> PathEscapeError:
        return PathEscapeError(f"path {self.original!r} {why}, outside the workspace {self.root}")

    def up(self) -> None:
        if len(self.stack) == 1:
            raise self.escape("climbs above the root")
        os.close(self.stack.pop())

    def follow(self, name: str, rest: list[str]) -> list[str]:
        """The components to walk instead of symlink ``name`` (in the current directory) and ``rest``."""
        self.links += 1
        if self.links > MAX_LINKS:
            raise self.escape("has too many levels of symbolic links")
        target = os.readlink(name, dir_fd=self.fd)
        if target.startswith("/"):
            base = str(self.root)
            if target != base and not target.startswith(base + "/"):
                raise self.escape(f"goes through a symlink to {target}")
            while len(self.stack) > 1:
                os.close(self.stack.pop())
            target = target[len(base) :]
        return _parts(target) + rest

    def descend(self, name: str, create: bool) -> bool:
        """Enter directory ``name``; False when ``name`` is a symlink (the caller follows it)."""
        try:
            self.stack.append(os.open(name, _DIR_FLAGS, dir_fd=self.fd))
            return True
        except FileNotFoundError:
            if not create:
                raise
            os.mkdir(name, 0o755, dir_fd=self.fd)
            self.stack.append(os.open(name, _DIR_FLAGS, dir_fd=self.fd))
            return True
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(name, self.fd):
                return False
            raise


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _walk_dirs(walk: _Walk, todo: list[str], create: bool) -> None:
    """Enter every directory of ``todo`` in turn (symlinks resolved inside the root)."""
    while todo:
        name, todo = todo[0], todo[1:]
        if name == "..":
            walk.up()
        elif not walk.descend(name, create):
            todo = walk.follow(name, todo)


@contextmanager
def parent_of(root: Path, rel: str, original: str, *, create: bool = False) -> Iterator[tuple[int, str]]:
    """``(fd of the directory holding the last component, its name)``; intermediate symlinks are resolved
    inside ``root`` (missing directories created with ``create``). The last component is not resolved; for
    the root itself (or a path ending in ``..``) the name is ``"."``."""
    walk = _Walk(root, original)
    try:
        parts = _parts(rel)
        last = parts.pop() if parts else "."
        _walk_dirs(walk, parts, create)
        if last == "..":
            walk.up()
            last = "."
        yield walk.fd, last
    finally:
        walk.close()


def open_beneath(root: Path, rel: str, flags: int, original: str, mode: int = 0o644) -> int:
    """A file descriptor for ``root/rel`` opened with ``flags``, every component (the last included) resolved
    inside ``root``."""
    todo, links = rel, 0
    while True:
        with parent_of(root, todo, original) as (dir_fd, name):
            try:
                return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd)
            except OSError as exc:
                if exc.errno != errno.ELOOP or not _is_link(name, dir_fd):
                    raise
                target = os.readlink(name, dir_fd=dir_fd)
        links += 1
        if links > MAX_LINKS:
            raise PathEscapeError(f"path {original!r} has too many levels of symbolic links")
        todo = _rebase(root, todo, target, original)


def _rebase(root: Path, rel: str, target: str, original: str) -> str:
    """``rel`` with its last component replaced by symlink ``target``, as a path relative to ``root``."""
    if target.startswith("/"):
        base = str(root)
        if target != base and not target.startswith(base + "/"):
            raise PathEscapeError(f"path {original!r} is a symlink to {target}, outside the workspace {root}")
        return target[len(base) :]
    return "/".join(_parts(rel)[:-1] + [target])


def read_bytes(root: Path, rel: str, original: str, limit: int | None = None) -> bytes:
    """The contents of regular file ``root/rel`` (its first ``limit`` bytes when given)."""
    fd = open_beneath(root, rel, os.O_RDONLY | os.O_NONBLOCK, original)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(f"{original!r} is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{original!r} is not a regular file")
        chunks, left = [], info.st_size if limit is None else min(limit, info.st_size)
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_bytes(root: Path, rel: str, data: bytes, mode: int, original: str) -> None:
    """Write ``root/rel`` atomically (a temporary file renamed over it: a symlink at the name is replaced,
    never followed); missing parent directories are created."""
    _replace(root, rel, original, mode, lambda fd: _write_all(fd, data))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _replace(root: Path, rel: str, original: str, mode: int, fill: Callable[[int], None]) -> None:
    with parent_of(root, rel, original, create=True) as (dir_fd, name):
        tmp = f".{name}.tmp{os.getpid()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
        try:
            fill(fd)
            os.fchmod(fd, mode)
        except BaseException:
            os.close(fd)
            os.unlink(tmp, dir_fd=dir_fd)
            raise
        os.close(fd)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)


def copy_in(root: Path, src: Path, rel: str, original: str) -> None:
    """Copy host file or directory ``src`` to ``root/rel`` (a directory's contents merge into it); symlinks in
    ``src`` are recreated as links; nothing is written outside ``root``."""
    if not src.is_dir():
        _copy_file_in(root, src, rel, original)
        return
    make_dirs(root, rel, original)
    for dirpath, dirnames, filenames in os.walk(src):
        here = Path(dirpath)
        sub = here.relative_to(src).as_posix()
        base = rel if sub == "." else f"{rel}/{sub}"
        links = [d for d in dirnames if (here / d).is_symlink()]
        for d in dirnames:
            if d not in links:
                make_dirs(root, f"{base}/{d}", original)
        for name in filenames + links:
            source = here / name
            if source.is_symlink():
                _link_in(root, os.readlink(source), f"{base}/{name}", original)
            else:
                _copy_file_in(root, source, f"{base}/{name}", original)
        dirnames[:] = [d for d in dirnames if d not in links]


def _copy_file_in(root: Path, src: Path, rel: str, original: str) -> None:
    info = src.stat()

    def fill(fd: int) -> None:
        with open(src, "rb") as fh:
            while chunk := fh.read(1 << 20):
                _write_all(fd, chunk)
        os.utime(fd, ns=(info.st_atime_ns, info.st_mtime_ns))

    _replace(root, rel, original, stat.S_IMODE(info.st_mode), fill)


def _link_in(root: Path, target: str, rel: str, original: str) -> None:
    with parent_of(root, rel, original, create=True) as (dir_fd, name):
        try:
            os.symlink(target, name, dir_fd=dir_fd)
        except FileExistsError:
            if _is_dir(name, dir_fd):
                raise
            os.unlink(name, dir_fd=dir_fd)
            os.symlink(target, name, dir_fd=dir_fd)


def _is_dir(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def make_dirs(root: Path, rel: str, original: str) -> None:
    """``mkdir -p root/rel``, every component resolved inside ``root``."""
    walk = _Walk(root, original)
    try:
        _walk_dirs(walk, _parts(rel), True)
    finally:
        walk.close()


def copy_out(root: Path, rel: str, dst: Path, original: str) -> None:
    """Copy file or directory ``root/rel`` to host path ``dst``; symlinks inside are recreated as links."""
    fd = open_beneath(root, rel, os.O_RDONLY | os.O_NONBLOCK, original)
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            dst.parent.mkdir(parents=True, exist_ok=True)
            _copy_fd(fd, dst)
            return
        for dirpath, dirnames, filenames, dfd in os.fwalk(".", dir_fd=fd, follow_symlinks=False):
            target = dst / dirpath
            target.mkdir(parents=True, exist_ok=True)
            for name in filenames + [d for d in dirnames if _is_link(d, dfd)]:
                _copy_entry(name, dfd, target / name)
    finally:
        os.close(fd)


def _copy_entry(name: str, dir_fd: int, target: Path) -> None:
    info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        target.unlink()
    if stat.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(name, dir_fd=dir_fd), target)
    elif stat.S_ISREG(info.st_mode):
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
        try:
            _copy_fd(fd, target)
        finally:
            os.close(fd)


def _copy_fd(fd: int, target: Path) -> None:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise OSError(f"{target.name!r} is not a regular file")
    with open(target, "wb") as out:
        while chunk := os.read(fd, 1 << 20):
            out.write(chunk)
    os.chmod(target, stat.S_IMODE(info.st_mode))
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
