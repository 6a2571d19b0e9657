"""Finding run directories (a directory holding ``run.json``) under the paths given to ``view``.

Each run gets a readable, stable key: its path relative to the parent of the root it was found under
(``results/demo__oracle__none/<run_id>``), made unique with ``~2``, ``~3`` ... when two roots collide.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from agentcompass._orchestrator.record import RUN_FILE, TASKS_DIR
from agentcompass.errors import ConfigError

MAX_DEPTH = 6  # results_dir/<run_name>/<run_id> is depth 2; launch outputs may nest a little deeper
SKIP = {TASKS_DIR, "node_modules", "__pycache__"}


@dataclass(frozen=True)
class RunRef:
    key: str
    path: Path


def check_roots(paths: list[str]) -> list[Path]:
    """The given paths as directories; a missing one is a usage error naming it."""
    roots = []
    for p in paths:
        path = Path(p).expanduser()
        if not path.is_dir():
            raise ConfigError(f"{p!r} is not a directory; give a results directory or a run directory")
        roots.append(path.resolve())
    return roots


def _walk(root: Path) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        depth = len(Path(dirpath).relative_to(root).parts)
        if RUN_FILE in filenames:
            found.append(Path(dirpath))
            dirnames[:] = []  # a run's own folders (tasks/, artifacts) are never searched
            continue
        dirnames[:] = (
            sorted(d for d in dirnames if d not in SKIP and not d.startswith(".")) if depth < MAX_DEPTH else []
        )
    return found


def find_runs(roots: list[Path]) -> list[RunRef]:
    refs: list[RunRef] = []
    seen: set[str] = set()
    dirs: set[Path] = set()
    for root in roots:
        for run_dir in _walk(root):
            if run_dir in dirs:  # a root given twice, or inside another root
                continue
            dirs.add(run_dir)
            base = run_dir.relative_to(root.parent).as_posix()
            key, n = base, 1
            while key in seen:
                n += 1
                key = f"{base}~{n}"
            seen.add(key)
            refs.append(RunRef(key, run_dir))
    return refs


class RunIndex:
    """The runs under the roots, re-discovered at most every ``ttl_s`` seconds (new runs appear live)."""

    def __init__(self, roots: list[Path], ttl_s: float = 1.0) -> None:
        self.roots, self.ttl_s = roots, ttl_s
        self._refs: list[RunRef] = []
        self._at = -1e9
        self._lock = threading.Lock()

    def refs(self) -> list[RunRef]:
        with self._lock:
            if time.monotonic() - self._at > self.ttl_s:
                self._refs = find_runs(self.roots)
                self._at = time.monotonic()
            return list(self._refs)

    def get(self, key: str) -> RunRef:
        for ref in self.refs():
            if ref.key == key:
                return ref
        raise KeyError(key)
