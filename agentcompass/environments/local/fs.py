"""File helpers of the local environment: path confinement, copies, staging, removal (its processes and their
output: :mod:`agentcompass.environments.local.procs`)."""

from __future__ import annotations

import json
import os
import posixpath
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agentcompass.errors import PathEscapeError
from agentcompass.kit import write_json

# --------------------------------------------------------------------------- paths


def map_path(root: Path, p: str, workdir: str) -> Path:
    """Host path of environment path ``p``; a ``..`` that climbs above the environment root is refused.

    A path already under ``root`` (the result of ``env.path``) is returned as is, so mapping is idempotent.
    """
    text = str(p)
    base = str(root)
    if text == base or text.startswith(base + "/"):
        return Path(posixpath.normpath(text))
    if not text.startswith("/"):
        text = posixpath.join(workdir or "/", text)
    parts: list[str] = []
    for part in text.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise PathEscapeError(f"path {p!r} escapes the environment root")
            parts.pop()
        else:
            parts.append(part)
    return root.joinpath(*parts) if parts else root


def confined(root: Path, host: Path, original: str) -> Path:
    """``host`` if it resolves (symlinks followed) inside ``root``; else PathEscapeError."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(host)
    if real != real_root and not real.startswith(real_root + os.sep):
        raise PathEscapeError(f"path {original!r} resolves to {real}, outside the workspace {root}")
    return host


# --------------------------------------------------------------------------- copies


def _prepare_target(root: Path, target: Path, original: str) -> None:
    """Make ``target`` writable as a fresh entry: refuse escapes, drop a symlink standing in its place."""
    confined(root, target.parent, original)
    if target.is_symlink():
        target.unlink()
    else:
        confined(root, target, original)


def copy_in(root: Path, src: Path, dst: Path, original: str) -> None:
    """Copy host ``src`` (file or directory) to workspace path ``dst``, checking every target."""
    if not src.is_dir():
        dst.parent.mkdir(parents=True, exist_ok=True)
        _prepare_target(root, dst, original)
        shutil.copy2(src, dst)
        return
    for dirpath, dirnames, filenames in os.walk(src):
        rel = Path(dirpath).relative_to(src)
        target_dir = dst / rel
        _prepare_target(root, target_dir, original) if target_dir != dst else confined(root, dst, original)
        target_dir.mkdir(parents=True, exist_ok=True)
        links = [d for d in dirnames if (Path(dirpath) / d).is_symlink()]
        for name in filenames + links:
            source, target = Path(dirpath) / name, target_dir / name
            _prepare_target(root, target, original)
            if source.is_symlink():
                os.symlink(os.readlink(source), target)
            else:
                shutil.copy2(source, target)
        dirnames[:] = [d for d in dirnames if d not in links]


@contextmanager
def staging(dst: Path) -> Iterator[Path]:
    """A temporary directory next to host path ``dst`` (removed afterwards): a download lands there first."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".agentcompass-dl-", dir=dst.parent))
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def check_links_inside(top: Path, original: str) -> None:
    """Every symlink under ``top`` (a download) must stay inside it: absolute targets and links that lead out
    (symlink chains included) are refused, so nothing on the host is reached through a downloaded link."""
    real_top = os.path.realpath(top)
    links = [top] if top.is_symlink() else [Path(d) / n for d, ds, fs in os.walk(top) for n in ds + fs]
    for p in links:
        if not p.is_symlink():
            continue
        target, real = os.readlink(p), os.path.realpath(p)
        if target.startswith("/") or not (real == real_top or real.startswith(real_top + os.sep)):
            rel = p.relative_to(top.parent) if p != top else Path(p.name)
            raise PathEscapeError(
                f"download of {original!r}: the link {str(rel)!r} -> {target!r} leads out of "
                f"the downloaded tree; refused"
            )


def mark_kept(marker: Path) -> None:
    try:
        info = json.loads(marker.read_text())
    except (OSError, ValueError):
        info = {}
    info["kept"] = True
    write_json(marker, info, indent=1)


def remove_tree(path: Path) -> None:
    """``rm -rf`` that also handles read-only directories left by commands."""

    def retry(func: Any, target: str, _exc: Any) -> None:
        parent = os.path.dirname(target)
        try:
            os.chmod(parent, os.stat(parent).st_mode | stat.S_IWUSR | stat.S_IXUSR)
            if os.path.isdir(target) and not os.path.islink(target):
                os.chmod(target, os.stat(target).st_mode | stat.S_IRWXU)
            func(target)
        except FileNotFoundError:
            pass

    if path.is_symlink():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path, onerror=retry)
