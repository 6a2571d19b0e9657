"""Reading run directories: cached JSON / JSONL / YAML reads keyed by (mtime, size), capped text reads, and
paths confined to a run directory. Nothing here writes."""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentcompass.errors import ConfigError

from .payloads import FileEntry, TextFile

TEXT_HEAD = 64 * 1024  # a capped text keeps its first and last bytes
_CACHE_SIZE = 512


class _Cache:
    """A small LRU of parsed files; an entry is valid while the file's (mtime_ns, size) is unchanged."""

    def __init__(self, size: int = _CACHE_SIZE) -> None:
        self.size = size
        self.items: OrderedDict[tuple[str, str], tuple[tuple[int, int], Any]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, kind: str, path: Path, load: Callable[[Path], Any]) -> Any:
        try:
            st = path.stat()
        except OSError:
            return None
        sig, key = (st.st_mtime_ns, st.st_size), (kind, str(path))
        with self.lock:
            hit = self.items.get(key)
            if hit is not None and hit[0] == sig:
                self.items.move_to_end(key)
                return hit[1]
        try:
            value = load(path)
        except (OSError, ValueError, UnicodeDecodeError):
            value = None
        with self.lock:
            self.items[key] = (sig, value)
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return value


CACHE = _Cache()


def _load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8", errors="replace"))


def _load_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            row = json.loads(line)
        except ValueError:  # a torn last line of a live run
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def _load_yaml(path: Path) -> Any:
    import yaml

    return yaml.safe_load(path.read_text(encoding="utf-8", errors="replace"))


def read_json(path: Path) -> Any:
    """The parsed JSON file, or None when it is missing or unreadable."""
    return CACHE.get("json", path, _load_json)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return CACHE.get("jsonl", path, _load_jsonl) or []


def read_yaml(path: Path) -> Any:
    return CACHE.get("yaml", path, _load_yaml)


def read_text(path: Path, limit: int = 2 * TEXT_HEAD) -> TextFile | None:
    """``{name, size, text, truncated}``: the whole text, or its head and tail when larger than ``limit``."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            if size <= limit:
                raw, truncated = fh.read(), False
            else:
                head = fh.read(limit // 4)
                fh.seek(size - (limit - limit // 4))
                tail = fh.read()
                marker = f"\n[... {size - len(head) - len(tail)} bytes not shown ...]\n".encode()
                raw, truncated = head + marker + tail, True
    except OSError:
        return None
    return {"name": path.name, "size": size, "text": raw.decode("utf-8", errors="replace"), "truncated": truncated}


def stamp(paths: list[Path]) -> str:
    """A cheap change marker: the (mtime_ns, size) of each path (missing ones count too)."""
    parts = []
    for p in paths:
        try:
            st = p.stat()
            parts.append(f"{st.st_mtime_ns}:{st.st_size}")
        except OSError:
            parts.append("-")
    return ",".join(parts)


def inside(root: Path, rel: str) -> Path:
    """``root / rel`` resolved, refusing anything that leaves ``root`` (``..``, absolute paths, symlinks out)."""
    if not rel or rel.startswith(("/", "\\")) or "\x00" in rel:
        raise ConfigError(f"path {rel!r}: must be relative to the run directory")
    base = root.resolve()
    target = (base / rel).resolve()
    if target != base and base not in target.parents:
        raise ConfigError(f"path {rel!r}: leaves the run directory")
    return target


def list_files(folder: Path, limit: int = 500) -> list[FileEntry]:
    """Files under ``folder`` (relative names, sizes), at most ``limit``; temporary files are left out."""
    out: list[FileEntry] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in sorted(filenames):
            if name.startswith(".") and name.endswith(".tmp"):
                continue
            path = Path(dirpath) / name
            try:
                size = path.stat().st_size
            except OSError:
                continue
            out.append({"name": path.relative_to(folder).as_posix(), "size": size})
            if len(out) >= limit:
                return out
    return out
