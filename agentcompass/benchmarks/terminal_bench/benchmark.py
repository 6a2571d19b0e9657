"""``TerminalBenchBenchmark``: any directory of tasks in the Terminal-Bench 2 format (FORMATS.md C).

Sources (see docs/terminal_bench.md): ``dataset_path`` (a local directory, wins when given), else ``repo_url`` at
``revision`` checked out once into ``<data_dir>/terminal_bench/<name>@<revision>`` (:mod:`.source`), tasks in
``subdir`` of it (or its ``tasks/`` folder when the root holds no task). Terminal-Bench 1 task directories
(``task.yaml``) load too and are graded by their pytest summary (:mod:`.tb1`).

Environment contract: ``/logs/agent`` and ``/logs/verifier`` exist when the agent starts; ``/tests`` and
``/solution`` do not (``/tests`` is uploaded by :meth:`grade` after the agent, ``/solution`` only by the oracle
through :meth:`reference_solution`). Subclasses extend it by overriding :meth:`dataset_root` (e.g. a cloned
repository) and adding fields to a subclass of :class:`TerminalBenchConfig`.

Input files convention (``workdir_files``): when set, ``environment/<workdir_files>/`` of a task is uploaded into
the workdir by :meth:`setup`, so environments that do not build the Dockerfile (``local``) get the same inputs as a
container whose Dockerfile does ``COPY <workdir_files>/ <workdir>/``. Uploading identical files again in a
container is harmless. The demo benchmark sets it to ``files``; it is off for other Terminal-Bench datasets.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agentcompass.benchmarks.terminal_bench import registry, shapes, startup
from agentcompass.benchmarks.terminal_bench.loader import TaskDir, TaskProblem, load_tasks, tasks_root
from agentcompass.benchmarks.terminal_bench.outcome import env_key, grade_of, refused, upload_clean
from agentcompass.benchmarks.terminal_bench.registry import DEFAULT_REGISTRY_URL
from agentcompass.benchmarks.terminal_bench.source import Checkout, fetch_checkout
from agentcompass.benchmarks.terminal_bench.tb1 import run_tb1_verifier, tb1_solution
from agentcompass.benchmarks.terminal_bench.verifier import run_verifier
from agentcompass.errors import HARBOR_ERROR_POLICY, ConfigError, DatasetError, SandboxError
from agentcompass.interfaces import (
    PREPARE,
    AgentResult,
    AttemptContext,
    ComponentContext,
    EnvSpec,
    Grade,
    Solution,
    Task,
)
from agentcompass.kit import data_dir, write_json

SOLUTION_COMMAND = 'bash "${AGENTCOMPASS_SOLUTION_DIR:-/solution}/solve.sh"'


class TerminalBenchConfig(BaseModel):
    """Configuration of a Terminal-Bench-format benchmark."""

    model_config = ConfigDict(extra="forbid")

    dataset_path: str | None = Field(
        None, description="Directory of task directories (or one task directory); wins over repo_url."
    )
    dataset: str | None = Field(
        None,
        description="NAME@VERSION (or NAME: Harbor's latest) of a dataset of Harbor's registry; wins over repo_url.",
    )
    registry_path: str | None = Field(None, description="A local Harbor registry file (registry.json) or mirror.")
    registry_url: str = Field(DEFAULT_REGISTRY_URL, description="Harbor registry file read without registry_path.")
    repo_url: str | None = Field(None, description="Git repository holding the tasks (used without dataset_path).")
    revision: str = Field("main", description="Commit, tag or branch of repo_url to check out.")
    subdir: str | None = Field(
        None,
        description="Folder of the checkout holding the task directories (None: the "
        "root, or its tasks/ folder when the root holds no task).",
    )
    clone_timeout_s: float = Field(1800, gt=0, description="Timeout of each git command fetching repo_url.")
    task_subset: list[str] | None = Field(
        None, description="The dataset's own task list (a registry's task_id_subset); other directories are ignored."
    )
    sample_ids: list[str] | None = Field(None, description="Task ids to run (directory names), in this order.")
    limit: int | None = Field(None, ge=0, description="Run at most this many tasks (after sample_ids).")
    base_image: str = Field(
        "python:3.12-bookworm",
        description="Build arg BASE_IMAGE for Dockerfiles (where it "
        "cannot be pulled, the docker environment builds its offline fallback).",
    )
    agent_timeout_s: float | None = Field(None, gt=0, description="Override of every task's [agent].timeout_sec.")
    verifier_timeout_s: float | None = Field(None, gt=0, description="Override of every task's [verifier].timeout_sec.")
    workdir_files: str | None = Field(
        None,
        description="Subdirectory of environment/ that setup uploads into "
        "the workdir (see the module docstring); None: nothing is uploaded.",
    )

    empty_verifier_logs: bool = Field(
        True,
        description="hardening: /logs/verifier is emptied before the verifier runs, and what the agent left there "
        "recorded (grade details verifier_logs_left_by_agent); false: only its reward files are deleted",
    )
    isolate_verifier_startup: bool = Field(
        True,
        description="hardening: sitecustomize / usercustomize / conftest.py / pytest settings above /tests the agent "
        "added are emptied, replaced programs refuse grading; .pth files recorded only (startup_hooks_changed)",
    )

    @field_validator("sample_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [s.strip() for s in value.split(",") if s.strip()]
        if isinstance(value, (list, tuple)):
            return [str(v) for v in value]
        return value


class TerminalBenchBenchmark:
    """Tasks in the Terminal-Bench 2 directory format, graded by ``tests/test.sh`` and its reward file."""

    config_class = TerminalBenchConfig
    error_policy = HARBOR_ERROR_POLICY  # an agent-phase failure is still verified (errors.HARBOR_ERROR_POLICY)

    def __init__(self, config: TerminalBenchConfig, ctx: ComponentContext | None = None) -> None:
        self.config = config
        self.ctx = ctx
        self.id = "terminal_bench"
        self.problems: list[TaskProblem] = []
        self.checkout: Checkout | None = None
        self._root: Path | None = None  # the loaded dataset's directory (hidden from local commands)
        self._hooks_before: dict[str, dict[str, shapes.HookFile]] = {}  # environment id -> start-up hooks at setup

    # ------------------------------------------------------------------ loading
    def dataset_root(self) -> Path:
        """Where the task directories are: ``dataset_path``, else the checkout of ``repo_url`` at ``revision``."""
        if self.config.dataset_path:
            return Path(os.path.expandvars(self.config.dataset_path)).expanduser()
        if self.config.dataset:
            c = self.config
            return registry.dataset_root(
                c.dataset, c.registry_path, c.registry_url, self._data_dir(), c.clone_timeout_s
            )
        if not self.config.repo_url:
            raise ConfigError(
                f"benchmark {self.id!r}: dataset_path is required (a directory of task directories), "
                f"dataset (NAME@VERSION of Harbor's registry), or repo_url (+ revision) of a git repository"
            )
        self.checkout = fetch_checkout(
            self.config.repo_url, self.config.revision, self._data_dir(), timeout_s=self.config.clone_timeout_s
        )
        root = self.checkout.path
        if self.config.subdir:
            root = root / self.config.subdir
            if not root.is_dir():
                raise DatasetError(
                    f"subdir={self.config.subdir!r}: no such folder in {self.config.repo_url} at "
                    f"revision {self.config.revision!r} (checkout {self.checkout.path})"
                )
            return root
        return tasks_root(root)

    def _data_dir(self) -> Path:
        return data_dir(self.ctx)

    def load(self) -> list[Task]:
        c = self.config
        root = self.dataset_root()
        result = load_tasks(root, sample_ids=c.sample_ids, limit=c.limit, subset=c.task_subset)
        self.problems = result.problems
        self._root = root
        return [self.to_task(td) for td in result.tasks]

    def to_task(self, td: TaskDir) -> Task:
        spec = td.spec
        metadata = dict(spec.metadata)
        metadata.update(
            {
                k: v
                for k, v in (
                    ("name", spec.name),
                    ("schema_version", spec.schema_version),
                    ("docker_image", spec.docker_image),
                )
                if v is not None
            }
        )
        if spec.agent_env:
            metadata["agent_env"] = dict(spec.agent_env)
        return Task(
            id=td.id,
            instruction=td.instruction,
            image=spec.docker_image,
            dockerfile_dir=td.environment_dir if td.dockerfile else None,
            workdir=td.workdir,
            cpus=spec.cpus,
            memory_mb=spec.memory_mb,
            agent_timeout_s=self.config.agent_timeout_s or spec.agent_timeout_s,
            verifier_timeout_s=self.config.verifier_timeout_s or spec.verifier_timeout_s,
            build_timeout_s=spec.build_timeout_s,
            env=dict(spec.environment_env),
            metadata=metadata,
            data=td,
        )

    @staticmethod
    def task_dir(task: Task) -> TaskDir:
        if not isinstance(task.data, TaskDir):
            raise DatasetError(f"task {task.id!r} was not loaded by a Terminal-Bench benchmark")
        return task.data

    def env_spec(self, task: Task) -> EnvSpec:
        """Image (``docker_image``, preferred) and/or build context ``environment/``, and the compose file
        ``environment/docker-compose.yaml`` when there is one; resources from task.toml."""
        td = self.task_dir(task)
        return EnvSpec(
            task_id=task.id,
            benchmark=self.id,
            image=task.image,
            dockerfile_dir=task.dockerfile_dir,
            compose_file=td.compose_file,
            build_args={"BASE_IMAGE": self.config.base_image},
            workdir=task.workdir,
            cpus=task.cpus,
            memory_mb=task.memory_mb,
            env=dict(task.env),
            network=td.spec.network,
            build_timeout_s=task.build_timeout_s,
            private_paths=[self._root or td.path],
        )

    # ------------------------------------------------------------------ attempt phases
    async def setup(self, task: Task, env: Any, ctx: AttemptContext | None = None) -> None:
        """Create /logs/agent, /logs/verifier and the workdir; make sure /tests and /solution are absent."""
        q = lambda p: shlex.quote(env.path(p))  # noqa: E731
        command = (
            f"rm -rf {q('/tests')} {q('/solution')} && "
            f"mkdir -p {q('/logs/agent')} {q('/logs/verifier')} {q(task.workdir)}"
        )
        prepare = PREPARE.of(env)
        if prepare is not None:  # done before anything else runs or reads there (docker: in the same exec)
            await prepare(command, what=f"task {task.id}: setup", timeout=120)
        else:
            res = await env.exec(command, timeout=120)
            if res.exit_code != 0:
                raise SandboxError(f"task {task.id}: setup failed (exit {res.exit_code}): {res.output.strip()[:300]}")
        if self.config.workdir_files:
            files = self.task_dir(task).environment_dir / self.config.workdir_files
            if files.is_dir():
                await upload_clean(env, files, task.workdir)
        self._hooks_before[env_key(env)] = await startup.snapshot(env)

    async def grade(
        self, task: Task, env: Any, agent: AgentResult | None = None, ctx: AttemptContext | None = None
    ) -> Grade:
        """Run tests/test.sh and read its reward. No valid reward: ``reward=None`` and ``error`` set."""
        td = self.task_dir(task)
        timeout = task.verifier_timeout_s or td.spec.verifier_timeout_s
        details: dict[str, object] = {}
        before = self._hooks_before.pop(env_key(env), None)  # None: set up elsewhere (a resumed attempt)
        hooks = await startup.since(env, before, isolate=self.config.isolate_verifier_startup)
        replaced = startup.replaced_programs(hooks) if self.config.isolate_verifier_startup else []
        if replaced:
            return grade_of(refused(replaced, hooks), details)
        if td.layout == "tb1":
            out, results = await run_tb1_verifier(
                env,
                td.path,
                workdir=task.workdir,
                timeout_s=timeout,
                env_vars=td.spec.verifier_env,
                parser_name=td.spec.metadata.get("parser_name", "pytest"),
            )
            details = {"tests": results, "n_tests": len(results)}
        else:
            out = await run_verifier(
                env,
                td.tests_dir,
                workdir=task.workdir,
                timeout_s=timeout,
                env_vars=td.spec.verifier_env,
                empty_logs=self.config.empty_verifier_logs,
            )
        out.startup_hooks = hooks
        return grade_of(out, details)

    def reference_solution(self, task: Task) -> Solution:
        """Upload ``solution/`` to ``/solution`` and run ``solve.sh`` (with ``[solution].env``) from the workdir."""
        td = self.task_dir(task)
        if td.layout == "tb1":
            return tb1_solution(td.path)
        if not (td.solution_dir / "solve.sh").is_file():
            raise DatasetError(f"{td.solution_dir / 'solve.sh'}: missing; task {task.id!r} has no reference solution")
        return Solution(files={"/solution": td.solution_dir}, command=SOLUTION_COMMAND, env=dict(td.spec.solution_env))

    def finalize(self, run_dir: Path, rows: list[dict[str, object]]) -> dict[str, str]:
        """``skipped_tasks.json`` (malformed task directories: task_id, path, field, reason) when there are any;
        ``dataset_source.json`` (repo_url, revision, commit, path) when the tasks came from a git checkout."""
        paths: dict[str, str] = {}
        if self.problems:
            skipped = [
                {"task_id": p.task_id, "path": p.path, "field": p.field, "reason": p.message} for p in self.problems
            ]
            paths["skipped_tasks"] = write_json(Path(run_dir) / "skipped_tasks.json", skipped)
        if self.checkout is not None:
            paths["dataset_source"] = write_json(Path(run_dir) / "dataset_source.json", self.checkout.to_dict())
        return paths
