"""Tar archives for moving files in and out of containers, with every extracted member confined.

What a container sends back is untrusted (the agent wrote it). :func:`extract_to` refuses absolute member
names, ``..`` components, symlinks or hard links that point outside the extracted tree, device files, and
writes through symlinks; any of these raises :class:`PathEscapeError` naming the member.
"""

from __future__ import annotations

import io
import os
import posixpath
import shutil
import tarfile
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from agentcompass.errors import PathEscapeError
from agentcompass.kit import place

SPOOL_BYTES = 32 * 1024 * 1024


def env_abspath(path: str, workdir: str) -> str:
    """Absolute, normalized environment path (relative paths are relative to ``workdir``)."""
    text = str(path)
    if not text.startswith("/"):
        text = posixpath.join(workdir or "/", text)
    norm = posixpath.normpath(text)
    return "/" + norm.lstrip("/")


def tar_of_path(src: Path, dst: str) -> IO[bytes]:
    """A tar (spooled file, rewound) placing host ``src`` at environment path ``dst`` (extract at ``/``)."""
    arcname = dst.strip("/") or "."
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
    with tarfile.open(fileobj=spool, mode="w", format=tarfile.PAX_FORMAT) as tar:
        tar.add(str(src), arcname=arcname, recursive=True, filter=_root_owned)
    spool.seek(0)
    return spool


def _root_owned(info: tarfile.TarInfo) -> tarfile.TarInfo:
    """Uploaded files belong to root in the container, whoever owns them on the host."""
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


def tar_of_bytes(dst: str, data: bytes, mode: int) -> bytes:
    """A tar holding one regular file at environment path ``dst`` (extract at ``/``)."""
    info = tarfile.TarInfo(dst.strip("/"))
    info.size, info.mode, info.mtime = len(data), mode & 0o7777, int(time.time())
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def spool_chunks(chunks: Iterable[bytes]) -> IO[bytes]:
    """Collect a stream of bytes into a rewound spooled file."""
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
    for chunk in chunks:
        spool.write(chunk)
    spool.seek(0)
    return spool


def _escape(member: str, why: str) -> PathEscapeError:
    return PathEscapeError(f"archive member {member!r} {why}; refused")


def check_member(m: tarfile.TarInfo, root: str) -> None:
    """Refuse a member whose name or link target leaves ``root`` (the archive's top entry)."""
    name = m.name
    parts = name.split("/")
    if name.startswith("/"):
        raise _escape(name, "has an absolute name")
    if ".." in parts:
        raise _escape(name, "climbs out with '..'")
    norm = posixpath.normpath(name)
    if norm != root and not norm.startswith(root + "/"):
        raise _escape(name, f"is outside the top entry {root!r}")
    if m.isdev() or m.isfifo():
        raise _escape(name, "is a device or fifo")
    if m.issym() or m.islnk():
        target = m.linkname
        if target.startswith("/"):
            raise _escape(name, f"links to the absolute path {target!r}")
        base = posixpath.dirname(norm) if m.issym() else ""
        resolved = posixpath.normpath(posixpath.join(base, target))
        if resolved != root and not resolved.startswith(root + "/"):
            raise _escape(name, f"links to {target!r}, outside {root!r}")


def _within(path: str, top: str) -> bool:
    return path == top or path.startswith(top + os.sep)


def _check_links_real(top: Path) -> None:
    """After extraction: every symlink must really resolve inside ``top`` (symlink chains included)."""
    real_top = os.path.realpath(top)
    walk = [top] if top.is_symlink() else [Path(d) / n for d, ds, fs in os.walk(top) for n in ds + fs]
    for p in walk:
        if p.is_symlink() and not _within(os.path.realpath(p), real_top):
            raise _escape(str(p.relative_to(top.parent)), f"resolves outside {top.name!r} through its links")


def extract_to(fileobj: IO[bytes], dst: Path) -> None:
    """Extract a container archive (one top entry) so that the top entry becomes host path ``dst``.

    Directories are merged into an existing ``dst``; files replace it. Raises PathEscapeError.
    """
    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".agentcompass-dl-", dir=dst.parent))
    try:
        with tarfile.open(fileobj=fileobj, mode="r:*") as tar:
            members = _checked_members(tar)
            try:
                tar.extractall(staging, members=members, filter="data")
            except tarfile.FilterError as exc:
                raise PathEscapeError(f"archive refused: {exc}") from None
        top = staging / members[0].name.split("/")[0]
        _check_links_real(top)
        place(top, dst)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _checked_members(tar: tarfile.TarFile) -> list[tarfile.TarInfo]:
    members: list[tarfile.TarInfo] = []
    root = None
    for m in tar:
        if root is None:
            root = posixpath.normpath(m.name).split("/")[0]
            if root in ("", ".", "..") or m.name.startswith("/"):
                raise _escape(m.name, "has no usable top entry")
        check_member(m, root)
        members.append(m)
    if not members:
        raise PathEscapeError("empty archive")
    return members


def single_file(fileobj: IO[bytes], path: str) -> tuple[tarfile.TarInfo, bytes | None]:
    """The first member of an archive and its bytes (None when it is not a regular file)."""
    with tarfile.open(fileobj=fileobj, mode="r|*") as tar:
        for m in tar:
            if m.isfile():
                fh = tar.extractfile(m)
                return m, fh.read() if fh else b""
            return m, None
    raise FileNotFoundError(f"{path}: empty archive from the container")
