"""Load a directory of Terminal-Bench task directories (FORMATS.md C1, C6). The directory name is the task id.

A Terminal-Bench 2 task directory holds ``instruction.md``, ``task.toml``, ``environment/Dockerfile`` (optional
when ``task.toml`` names a ``docker_image`` or ``environment/docker-compose.yaml`` defines the services),
``tests/test.sh`` and usually ``solution/solve.sh``. A directory
with ``task.yaml`` and no ``task.toml`` is a Terminal-Bench 1 task (:mod:`.tb1`: root ``Dockerfile``,
``run-tests.sh``, ``solution.sh``/``solution.yaml``). A malformed task directory does not stop the load: it
becomes a :class:`TaskProblem` (logged as a warning with path and field) and the other tasks still load.
``dataset_path`` may also point at a single task directory.
"""

from __future__ import annotations

import logging
import os
import posixpath
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from agentcompass.benchmarks.terminal_bench.task_toml import TaskSpec, parse_task_toml
from agentcompass.benchmarks.terminal_bench.tb1 import parse_task_yaml
from agentcompass.errors import DatasetError

log = logging.getLogger("agentcompass.benchmarks.terminal_bench")

DEFAULT_WORKDIR = "/app"
COMPOSE_FILE = "docker-compose.yaml"
_MARKERS = ("task.toml", "instruction.md", "task.yaml", "tests", "environment", "solution")
_WORKDIR_RE = re.compile(r"^\s*WORKDIR\s+(.+?)\s*$", re.IGNORECASE)
_FROM_RE = re.compile(r"^\s*FROM\s", re.IGNORECASE)


@dataclass
class TaskDir:
    """One loaded task directory."""

    id: str
    path: Path
    spec: TaskSpec
    instruction: str
    workdir: str = DEFAULT_WORKDIR
    layout: str = "tb2"  # "tb2" (task.toml) | "tb1" (task.yaml)

    @property
    def environment_dir(self) -> Path:
        """The Docker build context: ``environment/`` (TB2) or the task directory itself (TB1)."""
        return self.path if self.layout == "tb1" else self.path / "environment"

    @property
    def dockerfile(self) -> Path | None:
        candidate = self.environment_dir / "Dockerfile"
        return candidate if candidate.is_file() else None

    @property
    def compose_file(self) -> Path | None:
        """``environment/docker-compose.yaml`` of a Terminal-Bench 2 task (the task runs as a compose project)."""
        candidate = self.path / "environment" / COMPOSE_FILE
        return candidate if self.layout == "tb2" and candidate.is_file() else None

    @property
    def tests_dir(self) -> Path:
        return self.path / "tests"

    @property
    def solution_dir(self) -> Path:
        return self.path if self.layout == "tb1" else self.path / "solution"


@dataclass
class TaskProblem:
    """A task directory that could not be loaded."""

    task_id: str
    path: str
    field: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    def describe(self) -> str:
        """One line: the path, the field (when the path does not already say it) and the message, whose own
        copy of the path is left out."""
        message = " ".join(self.message.split())
        for prefix in (f"{self.field}: {self.path}: ", f"{self.path}: ", f"{self.field}: "):
            message = message.removeprefix(prefix)
        where = self.path if self.path.endswith(self.field) else f"{self.path}: {self.field}"
        return f"{where}: {message}"


@dataclass
class LoadResult:
    tasks: list[TaskDir] = field(default_factory=list)
    problems: list[TaskProblem] = field(default_factory=list)


def dockerfile_workdir(dockerfile: Path, default: str = DEFAULT_WORKDIR) -> str:
    """The last ``WORKDIR`` of the final stage (relative ones join the previous); ``default`` if none."""
    workdir = None
    for raw in dockerfile.read_text(encoding="utf-8", errors="replace").splitlines():
        if _FROM_RE.match(raw):
            workdir = None
            continue
        match = _WORKDIR_RE.match(raw)
        if match:
            value = match.group(1).strip().strip('"').strip("'")
            workdir = posixpath.normpath(posixpath.join(workdir or "/", value))
    return workdir or default


def _problem(task_id: str, path: Path, fld: str, message: str) -> TaskProblem:
    return TaskProblem(task_id=task_id, path=str(path), field=fld, message=message)


def _check_files(task_id: str, path: Path, spec: TaskSpec) -> TaskProblem | None:
    if not (path / "tests" / "test.sh").is_file():
        return _problem(task_id, path / "tests" / "test.sh", "tests/test.sh", "missing verifier script")
    env_dir = path / "environment"
    if spec.docker_image is None and not (env_dir / "Dockerfile").is_file() and not (env_dir / COMPOSE_FILE).is_file():
        return _problem(
            task_id,
            env_dir / "Dockerfile",
            "environment/Dockerfile",
            f"missing; give environment/Dockerfile, environment/{COMPOSE_FILE} or "
            f"[environment].docker_image in task.toml",
        )
    return None


def load_tb1_task_dir(path: Path) -> TaskDir | TaskProblem:
    """A Terminal-Bench 1 task directory (``task.yaml``), or what is wrong with it."""
    task_id = path.name
    try:
        spec, instruction = parse_task_yaml(path / "task.yaml")
    except DatasetError as exc:
        return _problem(task_id, path / "task.yaml", "task.yaml", str(exc))
    for name, what in (
        ("Dockerfile", "missing (a Terminal-Bench 1 task builds its root Dockerfile)"),
        ("run-tests.sh", "missing test runner"),
    ):
        if not (path / name).is_file():
            return _problem(task_id, path / name, name, what)
    extra = _tb1_extra_services(path / COMPOSE_FILE)
    if extra:
        return _problem(
            task_id,
            path / COMPOSE_FILE,
            COMPOSE_FILE,
            f"services {', '.join(extra)} besides 'client': multi-container Terminal-Bench 1 tasks are "
            f"not run (convert the task to the Terminal-Bench 2 format, e.g. with Harbor's "
            f"terminal-bench adapter, whose compose tasks run)",
        )
    return TaskDir(
        id=task_id,
        path=path,
        spec=spec,
        instruction=instruction,
        workdir=dockerfile_workdir(path / "Dockerfile"),
        layout="tb1",
    )


def _tb1_extra_services(compose: Path) -> list[str]:
    """Services of a Terminal-Bench 1 ``docker-compose.yaml`` other than the agent's ``client``."""
    import yaml

    try:
        data = yaml.safe_load(compose.read_text(encoding="utf-8")) if compose.is_file() else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []
    services = data.get("services") if isinstance(data, dict) else None
    return sorted(str(k) for k in services if k != "client") if isinstance(services, dict) else []


def _escaping_link(path: Path) -> Path | None:
    """The first symlink inside task directory ``path`` that resolves outside it (files a task ships are copied
    into environments: a link to a host directory would copy that directory), or None."""
    top = os.path.realpath(path)
    for dirpath, dirnames, filenames in os.walk(path):
        for name in dirnames + filenames:
            entry = Path(dirpath) / name
            if entry.is_symlink():
                real = os.path.realpath(entry)
                if real != top and not real.startswith(top + os.sep):
                    return entry
    return None


def load_task_dir(path: Path) -> TaskDir | TaskProblem:
    """Load one task directory, or describe what is wrong with it."""
    task_id = path.name
    link = _escaping_link(path)
    if link is not None:
        return _problem(
            task_id,
            link,
            str(link.relative_to(path)),
            f"is a symlink to {os.path.realpath(link)}, outside the task directory (refused: its "
            f"target would be copied into the environment)",
        )
    if not (path / "task.toml").is_file():
        if (path / "task.yaml").is_file():
            return load_tb1_task_dir(path)
        return _problem(task_id, path / "task.toml", "task.toml", "missing")
    try:
        spec = parse_task_toml(path / "task.toml")
    except DatasetError as exc:
        return _problem(task_id, path / "task.toml", "task.toml", str(exc))
    try:
        instruction = (path / "instruction.md").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return _problem(task_id, path / "instruction.md", "instruction.md", f"cannot be read: {exc}")
    if not instruction.strip():
        return _problem(task_id, path / "instruction.md", "instruction.md", "empty")
    problem = _check_files(task_id, path, spec)
    if problem:
        return problem
    dockerfile = path / "environment" / "Dockerfile"
    workdir = spec.workdir or (dockerfile_workdir(dockerfile) if dockerfile.is_file() else DEFAULT_WORKDIR)
    return TaskDir(id=task_id, path=path, spec=spec, instruction=instruction, workdir=workdir)


def tasks_root(root: Path) -> Path:
    """``root``, or ``root/tasks`` when ``root`` holds no task directory but has a ``tasks/`` folder (the layout
    of repositories that keep their tasks under ``tasks/``)."""
    if (root / "tasks").is_dir() and not _candidates(root):
        return root / "tasks"
    return root


def _candidates(root: Path) -> list[Path]:
    if (root / "task.toml").is_file() or (root / "task.yaml").is_file():
        return [root]
    found = []
    for child in sorted(root.iterdir()):
        if child.is_dir() and not child.name.startswith((".", "_")):
            if any((child / m).exists() for m in _MARKERS):
                found.append(child)
            else:
                log.debug("skipping %s: not a task directory", child)
    return found


def _select(
    tasks: dict[str, TaskDir], problems: dict[str, TaskProblem], root: Path, sample_ids: list[str] | None
) -> list[TaskDir]:
    if sample_ids is None:
        return list(tasks.values())
    selected = []
    for sid in dict.fromkeys(str(s) for s in sample_ids):
        if sid in tasks:
            selected.append(tasks[sid])
        elif sid in problems:
            raise DatasetError(f"sample id {sid!r} is a malformed task: {problems[sid].describe()}")
        else:
            valid = sorted(tasks)
            shown = ", ".join(valid[:8]) + (f", ... ({len(valid)} in all)" if len(valid) > 8 else "")
            raise DatasetError(f"unknown sample id {sid!r} in {root}; valid ids include: {shown or '(none)'}")
    return selected


def load_tasks(
    dataset_path: str | Path,
    *,
    sample_ids: list[str] | None = None,
    limit: int | None = None,
    subset: list[str] | None = None,
) -> LoadResult:
    """All task directories under ``dataset_path`` (sorted by id), filtered by ``sample_ids`` then ``limit``;
    with ``subset`` (a dataset's own task list, as a registry's ``task_id_subset``), other directories are not
    part of the dataset at all."""
    root = Path(dataset_path).expanduser()
    if not root.is_dir():
        raise DatasetError(f"dataset_path {str(dataset_path)!r}: not a directory")
    root = tasks_root(root)
    tasks: dict[str, TaskDir] = {}
    problems: dict[str, TaskProblem] = {}
    wanted = None if subset is None else set(map(str, subset))
    for path in _candidates(root):
        if wanted is not None and path.name not in wanted:
            continue
        loaded = load_task_dir(path)
        if isinstance(loaded, TaskProblem):
            log.debug("malformed task: %s", loaded.describe())
            problems[loaded.task_id] = loaded
        else:
            tasks[loaded.id] = loaded
    if problems and not tasks:
        first = next(iter(problems.values()))
        n = len(problems)
        what = "its task directory is not valid" if n == 1 else f"none of its {n} task directories is valid"
        raise DatasetError(
            f"dataset_path {str(dataset_path)!r}: {what}: {first.describe()}{_more(n - 1)}",
            details=[p.describe() for p in problems.values()],
        )
    selected = _select(tasks, problems, root, sample_ids)
    if limit is not None:
        selected = selected[: max(0, int(limit))]
    reported = list(problems.values())
    if sample_ids is not None:
        reported = [p for p in reported if p.task_id in set(map(str, sample_ids))]
    if reported:
        log.warning(
            "dataset_path %r: %d of %d task directories malformed, skipped: %s%s; all of them: "
            "skipped_tasks.json in the run directory",
            str(dataset_path),
            len(reported),
            len(reported) + len(tasks),
            reported[0].describe(),
            f" (and {len(reported) - 1} more)" if len(reported) > 1 else "",
        )
    return LoadResult(tasks=selected, problems=reported)


def _more(n: int) -> str:
    return f" (and {n} more; --log-level DEBUG lists them all)" if n > 0 else ""


def problems_as_dicts(problems: list[TaskProblem]) -> list[dict[str, str]]:
    return [p.to_dict() for p in problems]
