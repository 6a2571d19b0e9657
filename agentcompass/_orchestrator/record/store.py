"""The run directory: the record is the state. :class:`RunStore` owns every file name and every write.

::

    <results_dir>/<run_name>/<run_id>/
      config.yaml  run.json  tasks.json  results.jsonl  summary.json  run.log  analysis.json  analysis.md
      tasks/<task_id>/sample-<j>/attempt-<n>/  result.json  checkpoint.json  error.txt  verifier.log  artifacts/
                                    (plus the files harnesses and benchmarks write there themselves)

Sample ``j`` (1..n_attempts) of a task is one independent attempt at it; ``attempt-<n>`` numbers that sample's
physical attempts (a retry after an error is the next ``n``). Runs written before samples existed keep their
attempts in ``tasks/<task_id>/attempt-<n>/``: that directory is read as sample 1, and sample 1 of such a task
goes on there when the run is reused.

Every file is written atomically (temporary file + rename); ``results.jsonl`` grows by whole-line appends.
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcompass.errors import AgentCompassError, ConfigError, RecordWriteError, one_line, storage_error
from agentcompass.kit import write_atomic, writing
from agentcompass.kit import write_json as _write_json

from . import jsontext
from .runlock import RunLock, acquire
from .writer import Writer

if TYPE_CHECKING:  # the record's types (which name this module's classes)
    from .outcome import AgentRecord
    from .records import JsonObject, ResultRow
    from .result import RunPaths, RunRecord, RunResult

_UNSAFE = re.compile(r"[^A-Za-z0-9._@+=-]")
_ATTEMPT_DIR = re.compile(r"^attempt-(\d+)$")
_SAMPLE_DIR = re.compile(r"^sample-(\d+)$")

CONFIG_FILE = "config.yaml"  # the resolved request, secrets redacted
RUN_FILE = "run.json"  # status, timings, version, counts (rewritten as the run progresses)
FINGERPRINT_FILE = "tasks.json"  # the component configs and task ids (what reuse compares)
RESULTS_FILE = "results.jsonl"  # one line per finished (task, sample)
SUMMARY_FILE = "summary.json"  # what run_evaluation returns
LOG_FILE = "run.log"  # the file log, unless runtime.log_file names another path
ANALYSIS_JSON, ANALYSIS_MD = "analysis.json", "analysis.md"
TASKS_DIR = "tasks"
RESULT_FILE = "result.json"  # an attempt's outcome
CHECKPOINT_FILE = "checkpoint.json"  # the agent phase's result, written before verification starts
ERROR_FILE = "error.txt"  # the traceback of a failed attempt
VERIFIER_LOG = "verifier.log"
ARTIFACTS_DIR = "artifacts"
RECIPES_LOG = "recipes.log"  # what the enabled recipes' hooks ran and printed
LOCK_FILE = "run.lock"  # held (flock) by the one process running the run; names it
TEMP_PATTERN = ".*.tmp"  # write_atomic's temporary files (left only by a process killed mid-write)


def new_run_id() -> str:
    """Sortable and unique: UTC time with microseconds plus a random suffix."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ") + "-" + secrets.token_hex(3)


def safe_name(text: str) -> str:
    """A task or model id as a single directory name."""
    return _UNSAFE.sub("_", text.replace("/", "__")) or "_"


def write_json(path: str | Path, obj: Any, *, durable: bool = False, compact: bool = False) -> None:
    """:func:`agentcompass.kit.write_json` (atomic). ``durable`` is for run-level files only: a blocking fsync per
    attempt would stall the event loop."""
    _write_json(path, obj, indent=None if compact else 2, default=str, durable=durable)


def _mkdir(path: str) -> None:
    """``path`` made, or already a directory."""
    try:
        os.mkdir(path)
    except FileExistsError:
        if not os.path.isdir(path):
            raise


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


class AttemptRecord:
    """One attempt directory ``tasks/<task_id>/sample-<j>/attempt-<n>/`` and the files the orchestrator keeps
    there."""

    def __init__(self, path: Path, n: int, sample: int = 1) -> None:
        self.dir, self.n, self.sample = Path(path), n, sample
        self._dir = os.fspath(self.dir)

    @property
    def artifacts_dir(self) -> Path:
        return self.dir / ARTIFACTS_DIR

    def mkdir(self) -> None:
        """The directory, and the sample's and the task's above it when missing, made top down (a new task's
        first attempt: three mkdir calls)."""
        with writing(self.dir):
            try:
                _mkdir(self._dir)
            except FileNotFoundError:
                sample = os.path.dirname(self._dir)
                os.makedirs(os.path.dirname(sample), exist_ok=True)
                _mkdir(sample)
                _mkdir(self._dir)

    def write_result(self, outcome: JsonObject) -> None:
        """``result.json``: an :class:`~.outcome.AttemptOutcome`'s :meth:`record` (or one read back, amended)."""
        write_json(f"{self._dir}/{RESULT_FILE}", outcome, compact=True)

    def read_result(self) -> JsonObject | None:
        """The attempt's result.json, or None when it is missing or unreadable (a torn or partial attempt)."""
        try:
            data = read_json(self.dir / RESULT_FILE)
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def write_checkpoint(self, agent: AgentRecord) -> None:
        write_json(f"{self._dir}/{CHECKPOINT_FILE}", agent, compact=True)

    def read_checkpoint(self) -> AgentRecord | None:
        path = self.dir / CHECKPOINT_FILE
        return read_json(path) if path.is_file() else None

    def write_error(self, traceback_text: str) -> None:
        write_atomic(self.dir / ERROR_FILE, traceback_text)

    def write_verifier_log(self, text: str) -> None:
        write_atomic(self.dir / VERIFIER_LOG, text.encode("utf-8", errors="replace"))

    def file(self, name: str) -> Path:
        """A file of this attempt by name (the orchestrator's own: ERROR_FILE, VERIFIER_LOG; or a plug-in's)."""
        return self.dir / name


class RunStore:
    """One run directory: its paths, its files, and every read and write of them."""

    def __init__(self, results_dir: Path, run_name: str, run_id: str) -> None:
        self.run_name, self.run_id = run_name, run_id
        self.run_dir = Path(results_dir) / safe_name(run_name) / run_id
        self.tasks_dir = self.run_dir / TASKS_DIR
        self.results_path = self.run_dir / RESULTS_FILE
        self.summary_path = self.run_dir / SUMMARY_FILE
        self._append_lock = threading.Lock()
        self._fresh = False  # made by this process's create(): no attempt was recorded in the old layout
        self.writer = Writer()  # the attempts' writes, in order, off the event loop

    @classmethod
    def at(cls, run_dir: str | Path) -> RunStore:
        """The store of an existing run directory (``<results_dir>/<run_name>/<run_id>``), wherever it now is."""
        run_dir = Path(run_dir)
        store = cls(run_dir.parent.parent, run_dir.parent.name, run_dir.name)
        store.run_dir, store.tasks_dir = run_dir, run_dir / TASKS_DIR
        store.results_path, store.summary_path = run_dir / RESULTS_FILE, run_dir / SUMMARY_FILE
        return store

    def create(self, *, exist_ok: bool = False) -> None:
        existed = self.run_dir.exists()
        if existed and not exist_ok:
            raise ConfigError(f"run directory {str(self.run_dir)!r} already exists; pick another run_id or use reuse")
        self._fresh = not existed
        try:
            self.tasks_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(unusable_dir(self.run_dir.parent.parent, exc)) from None

    # ------------------------------------------------------------------ the lock and leftovers
    def lock(self) -> RunLock:
        """Hold the run's lock file (a RunInUseError names a live holder); release it with ``.release()``."""
        return acquire(self.run_dir / LOCK_FILE, self.run_id)

    def sweep_temp_files(self) -> int:
        """Remove temporary files a killed process left mid-write (call with the lock held)."""
        found = [
            *self.run_dir.glob(TEMP_PATTERN),
            *self.tasks_dir.glob(f"*/sample-*/attempt-*/{TEMP_PATTERN}"),
            *self.tasks_dir.glob(f"*/attempt-*/{TEMP_PATTERN}"),
        ]  # and older runs' layout
        for path in found:
            path.unlink(missing_ok=True)
        return len(found)

    # ------------------------------------------------------------------ run-level files
    def write_config(self, redacted: JsonObject) -> None:
        import yaml

        write_atomic(self.run_dir / CONFIG_FILE, yaml.safe_dump(redacted, sort_keys=False))

    def write_fingerprint(self, fingerprint: JsonObject) -> None:
        write_json(self.run_dir / FINGERPRINT_FILE, fingerprint)

    def read_fingerprint(self) -> JsonObject:
        path = self.run_dir / FINGERPRINT_FILE
        return read_json(path) if path.is_file() else {}

    def read_run_record(self) -> RunRecord | JsonObject:
        try:
            data = read_json(self.run_dir / RUN_FILE)
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def write_run_record(self, record: RunRecord) -> None:
        write_atomic(self.run_dir / RUN_FILE, jsontext.dumps(record, depth=2) + "\n")

    def write_summary(self, result: RunResult) -> None:
        """Sections, keys and per-task rows one per line (:mod:`.jsontext`: a large run's summary in milliseconds,
        not seconds)."""
        write_atomic(self.summary_path, jsontext.dumps(result, depth=3) + "\n", durable=True)

    def read_summary(self) -> RunResult | None:
        try:
            data = read_json(self.summary_path)
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None  # type: ignore[return-value]  # as written (any age)

    def write_analysis(self, analysis: JsonObject, markdown: str) -> None:
        write_json(self.run_dir / ANALYSIS_JSON, analysis)
        write_atomic(self.run_dir / ANALYSIS_MD, markdown)

    def analysis_paths(self) -> dict[str, str]:
        return {"analysis": str(self.run_dir / ANALYSIS_JSON), "analysis_md": str(self.run_dir / ANALYSIS_MD)}

    def log_path(self, log_file: str | None = None) -> Path:
        return Path(log_file) if log_file else self.run_dir / LOG_FILE

    def paths(self, log_file: str | None = None) -> RunPaths:
        """The ``paths`` section of a run's result."""
        d = self.run_dir
        return {
            "run_dir": str(d),
            "config": str(d / CONFIG_FILE),
            "results": str(self.results_path),
            "summary": str(self.summary_path),
            "log": str(self.log_path(log_file)),
            "tasks": str(self.tasks_dir),
        }

    # ------------------------------------------------------------------ results.jsonl
    def append_result(self, row: ResultRow) -> None:
        """One whole line per write on an O_APPEND descriptor: a crash never leaves a half-merged file, and a
        write the disk cannot hold is taken back (a StorageError)."""
        line = (json.dumps(row, default=str) + "\n").encode("utf-8")
        with self._append_lock, writing(self.results_path):
            fd = os.open(self.results_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            size = os.fstat(fd).st_size
            try:
                if os.write(fd, line) != len(line):  # a short write: the disk filled up under it
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            except OSError:
                os.ftruncate(fd, size)  # never a torn line, which the next append would merge with its own
                raise
            finally:
                os.close(fd)

    def finished_rows(self, *, strict: bool = False) -> dict[tuple[str, int], ResultRow]:
        """The last complete row per (task, sample) in results.jsonl (a row without ``sample``, from a run
        written before samples existed, is sample 1). A torn line is skipped, or with ``strict`` a ConfigError
        naming the file and the line."""
        rows: dict[tuple[str, int], ResultRow] = {}
        if not self.results_path.exists():
            return rows
        for n, line in enumerate(self.results_path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                if strict:
                    raise ConfigError(f"{self.results_path}: line {n} is not valid JSON") from None
                continue
            rows[(str(row["task_id"]), row_sample(row))] = row
        return rows

    def rewrite_results(self, rows: list[ResultRow]) -> None:
        write_atomic(self.results_path, "".join(json.dumps(r, default=str) + "\n" for r in rows), durable=True)

    # ------------------------------------------------------------------ tasks and attempts
    def task_dir(self, task_id: str) -> Path:
        return self.tasks_dir / safe_name(task_id)

    def sample_dir(self, task_id: str, sample: int = 1) -> Path:
        """``tasks/<task_id>/sample-<j>/``; sample 1 of a task recorded before samples existed is the task
        directory itself (its ``attempt-<n>/`` directories)."""
        folder = self.task_dir(task_id)
        if sample == 1 and not self._fresh and not (folder / "sample-1").is_dir() and any(_attempt_subdirs(folder)):
            return folder
        return folder / f"sample-{sample}"

    def attempt(self, task_id: str, n: int, sample: int = 1) -> AttemptRecord:
        """The record of attempt ``n`` of sample ``sample`` of ``task_id`` (nothing is created until something
        is written)."""
        if self._fresh:  # the new layout only: the path in one piece
            return AttemptRecord(Path(f"{self.tasks_dir}/{safe_name(task_id)}/sample-{sample}/attempt-{n}"), n, sample)
        return AttemptRecord(self.sample_dir(task_id, sample) / f"attempt-{n}", n, sample)

    def attempt_dir(self, task_id: str, n: int, sample: int = 1) -> Path:
        path = self.attempt(task_id, n, sample).dir
        path.mkdir(parents=True, exist_ok=True)
        return path

    def attempts_of(self, task_id: str, sample: int = 1) -> list[int]:
        return [record.n for record in self.attempt_records(task_id, sample)]

    def attempt_records(self, task_id: str, sample: int = 1) -> list[AttemptRecord]:
        """The attempt directories of one sample of a task, oldest first."""
        folder = self.sample_dir(task_id, sample)
        found = [AttemptRecord(sub, n, sample) for sub, n in _attempt_subdirs(folder)]
        return sorted(found, key=lambda record: record.n)

    def samples_of(self, task_id: str) -> list[int]:
        """The samples of a task that have a directory (a task of an older run has sample 1 only)."""
        folder = self.task_dir(task_id)
        found = {
            int(m.group(1))
            for sub in (folder.iterdir() if folder.is_dir() else ())
            if (m := _SAMPLE_DIR.match(sub.name)) and sub.is_dir()
        }
        if any(_attempt_subdirs(folder)):
            found.add(1)
        return sorted(found)


def _attempt_subdirs(folder: Path) -> Iterator[tuple[Path, int]]:
    """The ``attempt-<n>/`` directories of a sample directory (or, in older runs, of a task directory)."""
    for sub in folder.iterdir() if folder.is_dir() else ():
        match = _ATTEMPT_DIR.match(sub.name)
        if match and sub.is_dir():
            yield sub, int(match.group(1))


def row_sample(row: ResultRow | JsonObject) -> int:
    """The sample a results row belongs to (1 for rows written before samples existed)."""
    sample = row.get("sample")
    return int(sample) if isinstance(sample, int) and not isinstance(sample, bool) else 1


def unusable_dir(results_dir: Path, exc: OSError) -> str:
    """One line for a results dir that cannot hold run directories (a file, unwritable, read-only...)."""
    where = Path(results_dir)
    problem = next((p for p in (where, *where.parents) if p.exists()), where)
    if problem.exists() and not problem.is_dir():
        why = f"{str(problem)!r} is a file, not a directory"
    else:
        why = exc.strerror.lower() if exc.strerror else type(exc).__name__
    return f"results_dir {str(where)!r} cannot hold run directories: {why}"


def record_write_error(store: RunStore, exc: BaseException) -> AgentCompassError:
    """The error a request fails with when a write of its record failed (it names the file): a StorageError for
    a full disk, else a RecordWriteError."""
    if isinstance(exc, RecordWriteError):
        return exc
    return storage_error(exc) or RecordWriteError(
        f"the run's record under {str(store.run_dir)!r} could not be written: {one_line(exc)}"
    )


def attempt_number(attempt_dir: str | Path) -> int | None:
    """``n`` of an ``attempt-<n>`` directory path, else None."""
    match = _ATTEMPT_DIR.match(Path(attempt_dir).name)
    return int(match.group(1)) if match else None


def sample_number(attempt_dir: str | Path) -> int:
    """``j`` of a ``sample-<j>/attempt-<n>`` directory path; 1 for an attempt directly under its task."""
    match = _SAMPLE_DIR.match(Path(attempt_dir).parent.name)
    return int(match.group(1)) if match else 1


def find_reusable(results_dir: Path, run_name: str, run_id: str | None) -> str:
    """The run id to reuse: the given one (must exist) or the latest run of ``run_name``."""
    base = Path(results_dir) / safe_name(run_name)
    if run_id is not None:
        if not (base / run_id / RUN_FILE).is_file():
            raise ConfigError(f"reuse_run_id {run_id!r}: no run of {run_name!r} under {str(base)!r}")
        return run_id
    candidates = sorted(p.name for p in base.glob("*") if (p / RUN_FILE).is_file()) if base.is_dir() else []
    if not candidates:
        raise ConfigError(f"reuse: no previous run named {run_name!r} under {str(Path(results_dir))!r}")
    return candidates[-1]
