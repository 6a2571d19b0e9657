"""The run directory: the record is the state. Every file is written atomically.

::

    <results_dir>/<run_name>/<run_id>/
      config.yaml  run.json  tasks.json  results.jsonl  summary.json  run.log
      tasks/<task_id>/attempt-<n>/  result.json  checkpoint.json  trajectory files, artifacts/ ...
"""

from __future__ import annotations

import json
import os
import re
import secrets
import tempfile
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agentcompass.errors import ConfigError

_UNSAFE = re.compile(r"[^A-Za-z0-9._@+=-]")


def new_run_id() -> str:
    """Sortable and unique: UTC time with microseconds plus a random suffix."""
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ") + "-" + secrets.token_hex(3)


def safe_name(text: str) -> str:
    """A task or model id as a single directory name."""
    return _UNSAFE.sub("_", text.replace("/", "__")) or "_"


def write_atomic(path: Path, data: str | bytes, *, durable: bool = False) -> None:
    """Write to a temporary file in the same directory, then rename it over ``path``.

    A crash of the process never leaves a partial file. ``durable`` also fsyncs before the rename (survives a
    power loss); per-attempt files skip it, because a blocking fsync per attempt would stall the event loop.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, obj: Any, *, durable: bool = False, compact: bool = False) -> None:
    text = json.dumps(obj, default=str) if compact else json.dumps(obj, indent=2, default=str)
    write_atomic(path, text + "\n", durable=durable)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


class RunStore:
    def __init__(self, results_dir: Path, run_name: str, run_id: str) -> None:
        self.run_name, self.run_id = run_name, run_id
        self.run_dir = Path(results_dir) / safe_name(run_name) / run_id
        self.tasks_dir = self.run_dir / "tasks"
        self.results_path = self.run_dir / "results.jsonl"
        self._append_lock = threading.Lock()

    def create(self, *, exist_ok: bool = False) -> None:
        if self.run_dir.exists() and not exist_ok:
            raise ConfigError(f"run directory {str(self.run_dir)!r} already exists; pick another run_id or use reuse")
        self.tasks_dir.mkdir(parents=True, exist_ok=True)

    def task_dir(self, task_id: str) -> Path:
        return self.tasks_dir / safe_name(task_id)

    def attempt_dir(self, task_id: str, n: int) -> Path:
        path = self.task_dir(task_id) / f"attempt-{n}"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def attempts_of(self, task_id: str) -> list[int]:
        folder = self.task_dir(task_id)
        if not folder.is_dir():
            return []
        return sorted(int(p.name.split("-", 1)[1]) for p in folder.glob("attempt-*") if p.name[8:].isdigit())

    def append_result(self, row: dict[str, Any]) -> None:
        """One whole line per write on an O_APPEND descriptor: a crash never leaves a half-merged file."""
        line = (json.dumps(row, default=str) + "\n").encode("utf-8")
        with self._append_lock:
            fd = os.open(self.results_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)

    def finished_rows(self) -> dict[str, dict[str, Any]]:
        """The last complete row per task in results.jsonl (a torn last line is ignored)."""
        rows: dict[str, dict[str, Any]] = {}
        if not self.results_path.exists():
            return rows
        for line in self.results_path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            rows[row["task_id"]] = row
        return rows

    def rewrite_results(self, rows: list[dict[str, Any]]) -> None:
        write_atomic(self.results_path, "".join(json.dumps(r, default=str) + "\n" for r in rows), durable=True)


def find_reusable(results_dir: Path, run_name: str, run_id: str | None) -> str:
    """The run id to reuse: the given one (must exist) or the latest run of ``run_name``."""
    base = Path(results_dir) / safe_name(run_name)
    if run_id is not None:
        if not (base / run_id / "run.json").is_file():
            raise ConfigError(f"reuse_run_id {run_id!r}: no run of {run_name!r} under {str(base)!r}")
        return run_id
    candidates = sorted(p.name for p in base.glob("*") if (p / "run.json").is_file()) if base.is_dir() else []
    if not candidates:
        raise ConfigError(f"reuse: no previous run named {run_name!r} under {str(Path(results_dir))!r}")
    return candidates[-1]
