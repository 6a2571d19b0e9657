"""The SWE-bench benchmark (``swebench_verified`` and the generic ``swebench``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agentcompass.errors import ConfigError, DatasetError
from agentcompass.interfaces import (
    AgentResult,
    AttemptContext,
    ComponentContext,
    Environment,
    EnvSpec,
    Grade,
    Solution,
    Task,
)

from . import dataset, reports, runner
from .log_parsers import PARSER_REGISTRY
from .predictions import load_predictions
from .specs import RepoSpec, resolve_spec

DEFAULT_IMAGE_TEMPLATE = "swebench/sweb.eval.{arch}.{instance_id_1776}:latest"
PREDICTIONS_HARNESS = "predictions"
HOST_ENVIRONMENTS = ("local", "memory")  # environments that cannot open an instance image


class RepoSpecConfig(BaseModel):
    """How to test one (repository, version): added to, or replacing, the official table."""

    model_config = ConfigDict(extra="forbid")
    test_cmd: str = Field(description="Base test command; the test files of test_patch are appended.")
    log_parser: str = Field("parse_log_pytest", description="A key of the log-parser registry.")
    install: str | None = Field(None, description="Command run before the tests (e.g. a re-install).")
    eval_commands: list[str] = Field(default_factory=list, description="Preparation commands run first.")
    eval_type: str = Field("pass_and_fail", description="pass_and_fail | fail_only.")


class SWEBenchConfig(BaseModel):
    """SWE-bench: one task per instance, graded by the instance's FAIL_TO_PASS / PASS_TO_PASS tests."""

    model_config = ConfigDict(extra="forbid")
    dataset_name: str = Field(
        "SWE-bench/SWE-bench_Verified",
        description="Hub dataset id; also the folder name under <data_dir>/swebench/ where a local copy is looked for.",
    )
    dataset_path: str | None = Field(
        None,
        description="A .parquet/.jsonl/.json file or a directory "
        "(data/<split>-*.parquet, <split>.parquet, <split>.jsonl, <split>.json).",
    )
    split: str = Field("test", description="Dataset split.")
    sample_ids: list[str] | None = Field(None, description="Instance ids to run (an unknown id is an error).")
    limit: int | None = Field(None, ge=1, description="Run only the first N selected instances.")
    allow_download: bool = Field(
        True,
        description="Download the dataset with huggingface_hub when no local "
        "copy exists (needs the 'hub' extra and network).",
    )
    image_template: str = Field(
        DEFAULT_IMAGE_TEMPLATE,
        description="Environment image name; placeholders "
        "{arch}, {instance_id}, {instance_id_lower}, {instance_id_1776}. An instance's own "
        "'image' field wins.",
    )
    arch: str = Field("x86_64", description="Value of {arch} in image_template: x86_64 or arm64.")
    eval_timeout_s: float = Field(1800.0, gt=0, description="Time limit of the test run (eval.sh).")
    workdir: str = Field("/testbed", description="Repository directory inside the image (agent cwd).")
    model_name_or_path: str | None = Field(
        None,
        description="model_name_or_path written to preds.jsonl and "
        "report names; default: the model id reported by the harness.",
    )
    include_hints: bool = Field(False, description="Append hints_text to the problem statement.")
    agent_env: dict[str, str] = Field(
        default_factory=lambda: {"BASH_ENV": "/root/.bashrc"},
        description=(
            "Variables for the agent's commands (Task.env); BASH_ENV makes non-interactive bash activate the "
            "images' conda env. Set {} with the local environment, whose ~/.bashrc is the host's."
        ),
    )
    repo_specs: dict[str, dict[str, RepoSpecConfig]] = Field(
        default_factory=dict,
        description=("repo -> version ('*': any version) -> how to test it; added to / replacing the official table."),
    )
    grade_in: Literal["fresh", "agent"] = Field(
        "fresh",
        description=(
            "fresh (official): grade in a new environment from the instance image with the saved patch applied; "
            "agent (not official): grade in the agent's environment after resetting its repository."
        ),
    )
    predictions_path: str | None = Field(
        None,
        description=(
            "Predictions for the 'predictions' harness: a .jsonl / .json file (list, or dict keyed by instance id) "
            "of {instance_id, model_name_or_path, model_patch}, or 'gold' for the dataset's own patches."
        ),
    )

    @field_validator("sample_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        return value

    @field_validator("arch")
    @classmethod
    def _check_arch(cls, value: str) -> str:
        if value not in ("x86_64", "arm64"):
            raise ValueError(f"arch must be x86_64 or arm64, got {value!r}")
        return value


class SWEBenchBenchmark:
    """Implements :class:`agentcompass.interfaces.Benchmark` for SWE-bench-format datasets."""

    config_class = SWEBenchConfig
    id = "swebench"
    resumable_from_submission = True  # grading needs only the submission: re-verify in a fresh environment

    def __init__(self, config: SWEBenchConfig, ctx: ComponentContext) -> None:
        self.config, self.ctx = config, ctx
        self._extra_specs = _user_specs(config.repo_specs)
        self._predictions: dict[str, dict[str, Any]] | None = None
        if config.predictions_path and ctx.harness_id not in ("", PREDICTIONS_HARNESS):
            raise ConfigError(
                f"benchmark_params.predictions_path is read by the {PREDICTIONS_HARNESS!r} harness "
                f"only; the harness is {ctx.harness_id!r} (drop predictions_path or use harness "
                f"{PREDICTIONS_HARNESS!r})"
            )
        if config.grade_in == "fresh" and ctx.environment_id in HOST_ENVIRONMENTS:
            raise ConfigError(
                f"benchmark {self.id!r}: grade_in='fresh' grades in a new environment from the instance "
                f"image, which environment {ctx.environment_id!r} cannot open; use --env docker, or "
                f"benchmark_params.grade_in='agent' (not official)"
            )
        if ctx.harness_id == PREDICTIONS_HARNESS and not config.predictions_path:
            raise ConfigError(
                f"harness {PREDICTIONS_HARNESS!r} needs benchmark_params.predictions_path (a .jsonl "
                f"or .json predictions file, or 'gold')"
            )

    # ------------------------------------------------------------------ tasks

    def image_for(self, row: dict[str, Any]) -> str:
        if row.get("image"):
            return str(row["image"])
        iid = row["instance_id"]
        try:
            return self.config.image_template.format(
                arch=self.config.arch,
                instance_id=iid,
                instance_id_lower=iid.lower(),
                instance_id_1776=iid.replace("__", "_1776_").lower(),
            )
        except (KeyError, IndexError, ValueError) as exc:
            raise ConfigError(
                f"benchmark {self.id!r}: image_template={self.config.image_template!r} is invalid "
                f"({exc}); allowed placeholders: {{arch}}, {{instance_id}}, {{instance_id_lower}}, "
                f"{{instance_id_1776}}"
            ) from None

    def _task(self, row: dict[str, Any]) -> Task:
        instruction = row["problem_statement"]
        if self.config.include_hints and row.get("hints_text"):
            instruction = f"{instruction}\n\nHints:\n{row['hints_text']}"
        meta = {k: row.get(k) for k in ("repo", "version", "base_commit", "created_at", "difficulty") if k in row}
        return Task(
            id=row["instance_id"],
            instruction=instruction,
            image=self.image_for(row),
            workdir=self.config.workdir,
            verifier_timeout_s=self.config.eval_timeout_s,
            env=dict(self.config.agent_env),
            metadata=meta,
            data=row,
        )

    def _select(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if self.config.sample_ids is not None:
            by_id = {r["instance_id"]: r for r in rows}
            unknown = [i for i in self.config.sample_ids if i not in by_id]
            if unknown:
                shown = ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else "")
                raise ConfigError(
                    f"benchmark {self.id!r}: sample_ids not in the dataset: {shown} "
                    f"({len(rows)} instances, e.g. {rows[0]['instance_id'] if rows else '-'})"
                )
            wanted = set(self.config.sample_ids)
            rows = [r for r in rows if r["instance_id"] in wanted]
        return rows[: self.config.limit] if self.config.limit else rows

    def load(self) -> list[Task]:
        rows = dataset.load_instances(
            self.config.dataset_path,
            self.config.dataset_name,
            self.config.split,
            Path(self.ctx.data_dir),
            self.config.allow_download,
        )
        selected = self._select(rows)
        for row in selected:  # an unknown (repo, version) stops the run before anything starts
            try:
                resolve_spec(row, self._extra_specs)
            except DatasetError as exc:
                raise DatasetError(f"instance {row['instance_id']}: {exc}") from None
        if self.config.predictions_path:
            self._predictions = load_predictions(self.config.predictions_path, rows, selected)
        return [self._task(r) for r in selected]

    def env_spec(self, task: Task) -> EnvSpec:
        return EnvSpec(
            task_id=task.id,
            benchmark=self.id,
            image=task.image,
            workdir=task.workdir,
            cpus=task.cpus,
            memory_mb=task.memory_mb,
        )

    def grading_env_spec(self, task: Task) -> EnvSpec | None:
        """``grade_in: fresh``: a new environment from the instance image (FreshGrading capability)."""
        return self.env_spec(task) if self.config.grade_in == "fresh" else None

    def supplied_solution(self, task: Task) -> Solution | None:
        """The prediction of ``task`` from ``predictions_path`` (None: the file has none for it)."""
        if self._predictions is None:
            raise ConfigError(f"benchmark {self.id!r}: no predictions loaded; set benchmark_params.predictions_path")
        pred = self._predictions.get(task.id)
        if pred is None:
            return None
        return Solution(submission=pred["model_patch"], info={"model_name_or_path": pred["model_name_or_path"]})

    # ------------------------------------------------------------------ attempts

    async def setup(self, task: Task, env: Environment, ctx: AttemptContext) -> None:
        if self.config.grade_in == "agent":  # remember the start of the tree, to reset it before grading
            await runner.record_setup(env, task.workdir, Path(ctx.attempt_dir))

    def _default_model_name(self) -> str:
        """SWE-bench's name for gold patches under the oracle harness, else the request's model name."""
        if self.ctx.harness_id == "oracle":
            return "gold"
        return self.ctx.model_id if self.ctx.model_id not in ("", "none") else "agentcompass"

    def _model_name(self, agent: AgentResult) -> str:
        return (
            self.config.model_name_or_path
            or agent.info.get("model_name_or_path")
            or agent.info.get("model_name")
            or self._default_model_name()
        )

    def _job(self, task: Task, agent: AgentResult, ctx: AttemptContext) -> runner.GradeJob:
        row = task.data
        return runner.GradeJob(
            row=row,
            spec=resolve_spec(row, self._extra_specs),
            patch=agent.submission,
            model_name_or_path=self._model_name(agent),
            attempt_dir=Path(ctx.attempt_dir),
            workdir=task.workdir,
            fresh=self.config.grade_in == "fresh",
            eval_timeout_s=task.verifier_timeout_s or self.config.eval_timeout_s,
        )

    def grade_without_env(self, task: Task, agent: AgentResult, ctx: AttemptContext) -> Grade | None:
        """No prediction for the task (predictions harness): not run, the run report lists it as incomplete;
        an empty patch: not run, listed as empty_patch. Else None (the patch is graded in an environment)."""
        if self._predictions is not None and task.id not in self._predictions:
            return Grade(reward=0.0, rewards={"resolved": 0.0}, resolved=False, details={"status": "incomplete"})
        job = self._job(task, agent, ctx)
        return runner.grade_empty(job) if runner.is_empty(job.patch) else None

    async def grade(self, task: Task, env: Environment, agent: AgentResult, ctx: AttemptContext) -> Grade:
        return await runner.grade_instance(env, self._job(task, agent, ctx))

    def reference_solution(self, task: Task) -> Solution:
        return Solution(submission=task.data["patch"])

    def finalize(self, run_dir: Path, rows: list[dict[str, Any]]) -> dict[str, str]:
        """preds.jsonl and the run report; with repeated samples, one pair per sample (one prediction per
        instance each, as the official harness takes them): sample 1's under the usual names, sample j's with
        ``.sample-<j>`` before the extension (paths keys ``predictions_sample_<j>``, ``report_sample_<j>``)."""
        run_id = self.ctx.run_id or Path(run_dir).name
        model = self.config.model_name_or_path or self._default_model_name()
        samples: dict[int, list[dict[str, Any]]] = {}
        for row in rows:
            samples.setdefault(int(row.get("sample") or 1), []).append(row)
        out: dict[str, str] = {}
        for j, group in sorted(samples.items()) or [(1, [])]:
            paths = reports.write_run_outputs(
                Path(run_dir),
                group,
                run_id,
                model,
                submitted=self._predictions,
                suffix="" if j == 1 else f".sample-{j}",
            )
            out.update(paths if j == 1 else {f"{k}_sample_{j}": v for k, v in paths.items()})
        return out


def _user_specs(repo_specs: dict[str, dict[str, RepoSpecConfig]]) -> dict[str, dict[str, RepoSpec]]:
    """``repo_specs`` as table entries; an unknown log parser or eval type is an error naming the entry."""
    out: dict[str, dict[str, RepoSpec]] = {}
    for repo, versions in repo_specs.items():
        for version, s in versions.items():
            where = f"benchmark_params.repo_specs[{repo!r}][{version!r}]"
            if s.log_parser not in PARSER_REGISTRY:
                raise ConfigError(
                    f"{where}.log_parser={s.log_parser!r} is unknown; valid: {', '.join(sorted(PARSER_REGISTRY))}"
                )
            if s.eval_type not in dataset.EVAL_TYPES:
                raise ConfigError(f"{where}.eval_type={s.eval_type!r}; valid: {', '.join(dataset.EVAL_TYPES)}")
            out.setdefault(repo, {})[version] = RepoSpec(
                s.test_cmd, s.log_parser, s.install, tuple(s.eval_commands), s.eval_type
            )
    return out
