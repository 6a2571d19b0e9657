"""The SWE-bench benchmark (``swebench_verified`` and the generic ``swebench``)."""

from __future__ import annotations

from pathlib import Path

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

from . import dataset, history, reports, runner
from .config import RepoSpecConfig, SWEBenchConfig
from .log_parsers import PARSER_REGISTRY
from .predictions import load_predictions
from .shapes import Prediction, ResultRow, SweBenchInstance
from .specs import RepoSpec, resolve_spec

PREDICTIONS_HARNESS = "predictions"
HOST_ENVIRONMENTS = ("local", "memory")  # environments that cannot open an instance image


class SWEBenchBenchmark:
    """Implements :class:`agentcompass.interfaces.Benchmark` for SWE-bench-format datasets."""

    config_class = SWEBenchConfig
    id = "swebench"
    resumable_from_submission = True  # grading needs only the submission: re-verify in a fresh environment

    def __init__(self, config: SWEBenchConfig, ctx: ComponentContext) -> None:
        self.config, self.ctx = config, ctx
        self._extra_specs = _user_specs(config.repo_specs)
        self._predictions: dict[str, Prediction] | None = None
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

    def image_for(self, row: SweBenchInstance) -> str:
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

    def _task(self, row: SweBenchInstance) -> Task:
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

    def _select(self, rows: list[SweBenchInstance]) -> list[SweBenchInstance]:
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
            self.config.revision,
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
        """The instance image; with ``history: base_only`` (on an environment with images) an image built FROM it
        with nothing after the base commit (:mod:`.history`)."""
        spec = EnvSpec(
            task_id=task.id,
            benchmark=self.id,
            image=task.image,
            workdir=task.workdir,
            cpus=task.cpus,
            memory_mb=task.memory_mb,
        )
        if self.config.history == "base_only" and self.ctx.environment_id not in HOST_ENVIRONMENTS and task.image:
            spec.dockerfile_dir = history.context(Path(self.ctx.data_dir))
            spec.build_args = history.build_args(task.image, task.workdir, str(task.data["base_commit"]))
            spec.image = None  # built from the context (the instance image is its FROM)
        return spec

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

    def finalize(self, run_dir: Path, rows: list[ResultRow]) -> dict[str, str]:
        """preds.jsonl and the run report; with repeated samples, one pair per sample (one prediction per
        instance each, as the official harness takes them): sample 1's under the usual names, sample j's with
        ``.sample-<j>`` before the extension (paths keys ``predictions_sample_<j>``, ``report_sample_<j>``)."""
        run_id = self.ctx.run_id or Path(run_dir).name
        model = self.config.model_name_or_path or self._default_model_name()
        samples: dict[int, list[ResultRow]] = {}
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
                s.test_cmd, s.log_parser, s.install, tuple(s.eval_commands), s.eval_type, s.language, tuple(s.build)
            )
    return out
