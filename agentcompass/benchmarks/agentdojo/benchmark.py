"""The AgentDojo benchmark: the ``agentdojo`` package's suites, run and scored by the package.

Tasks: for each suite of ``suites`` at ``benchmark_version`` (default the package's latest), every user task alone
(``suite/user_task_N``: utility) and, unless ``attack`` is ``none``, every user task with every injection task
under the attack (``suite/user_task_N/injection_task_M``: utility under attack, targeted attack success). An
attempt is one conversation (:class:`~.conversation.AgentDojoConversation`) over a freshly loaded environment;
grading runs the package's ``run_task_with_pipeline`` again on a fresh environment with the transcript's agent
messages as the pipeline's LLM replies, so the grade comes from the transcript alone and from the package's own
``utility`` / ``security`` functions (docs/agentdojo.md)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from agentcompass.conversation import Transcript
from agentcompass.errors import ConfigError, VerifierError
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
from agentcompass.kit import select_ids, write_json

from . import _package
from .metrics import ATTACK_SUCCESS, UTILITY, case_of, figures
from .shapes import ResultRow

SUITES = ("workspace", "travel", "banking", "slack")
RESULTS_FILE = "agentdojo_results.json"


class AgentDojoConfig(BaseModel):
    """Configuration of AgentDojo."""

    model_config = ConfigDict(extra="forbid")

    suites: list[str] = Field(list(SUITES), description="The suites to run (workspace, travel, banking, slack).")
    benchmark_version: str | None = Field(None, description="The package's benchmark version (None: its latest).")
    attack: str = Field("important_instructions", description="A registered attack of the package, or none.")
    defense: str | None = Field(None, description="spotlighting_with_delimiting | repeat_user_prompt | None.")
    pipeline_name: str | None = Field(
        None, description="The pipeline's name attacks read to address the model (None: the request's model)."
    )
    sample_ids: list[str] | None = Field(None, description="Task ids to run, in this order.")
    limit: int | None = Field(None, ge=0, description="Run at most this many tasks (after sample_ids).")
    agent_timeout_s: float | None = Field(None, gt=0, description="Wall-clock bound of one conversation.")


class AgentDojoBenchmark:
    """AgentDojo, one or more suites per request."""

    id = "agentdojo"
    config_class = AgentDojoConfig
    resumable_from_submission: ClassVar[bool] = True  # grading reads only the transcript

    def __init__(self, config: AgentDojoConfig, ctx: ComponentContext | None = None) -> None:
        self.config = config
        _package.check_attack(config.attack)
        _package.check_defense(config.defense)
        self.version = config.benchmark_version or _package.latest_version()
        available = _package.suites(self.version)
        unknown = [s for s in config.suites if s not in available]
        if unknown or not config.suites:
            raise ConfigError(
                f"benchmark.suites: {unknown or '[]'} not suites of {self.version}; valid: {list(available)}"
            )
        model = ctx.model_id if ctx is not None else ""
        self.name = config.pipeline_name or (model if model and model != "none" else "local")
        self._attacks: dict[str, object] = {}
        self._injections: dict[str, dict[str, str]] = {}

    # ------------------------------------------------------------------ tasks
    def load(self) -> list[Task]:
        ids = self._all_ids()
        c = self.config
        return [self._task(i) for i in select_ids(ids, c.sample_ids, c.limit, f"suites {c.suites}")]

    def _all_ids(self) -> list[str]:
        out: list[str] = []
        suites = _package.suites(self.version)
        for name in self.config.suites:
            suite = suites[name]
            out += [f"{name}/{u}" for u in suite.user_tasks]
            if self.config.attack != _package.NO_ATTACK:
                out += [f"{name}/{u}/{i}" for u in suite.user_tasks for i in suite.injection_tasks]
        return out

    def _task(self, task_id: str) -> Task:
        suite, user, injection = case_of(task_id)
        prompt = _package.suites(self.version)[suite].user_tasks[user].PROMPT
        return Task(
            id=task_id,
            instruction=str(prompt),
            workdir="/",
            agent_timeout_s=self.config.agent_timeout_s,
            metadata={"suite": suite, "user_task": user, "injection_task": injection, "version": self.version},
        )

    def case(self, task_id: str) -> Any:
        """The package's objects of a task (a :class:`~.run.CaseRun`), the attack's injections computed once."""
        from .run import CaseRun

        suite_name, user, injection = case_of(task_id)
        suite = _package.suites(self.version)[suite_name]
        user_task = suite.user_tasks[user]
        injection_task = suite.injection_tasks[injection] if injection is not None else None
        injections: dict[str, str] = {}
        if injection_task is not None:
            if task_id not in self._injections:
                self._injections[task_id] = dict(self._attack(suite_name).attack(user_task, injection_task))
            injections = self._injections[task_id]
        return CaseRun(suite, user_task, injection_task, injections, self.config.defense, self.name)

    def _attack(self, suite_name: str) -> Any:
        if suite_name not in self._attacks:
            from .elements import ReplayElement

            target = _package.pipeline(ReplayElement(self.name, []), self.config.defense)
            suite = _package.suites(self.version)[suite_name]
            self._attacks[suite_name] = _package.load_attack(self.config.attack, suite, target)
        return self._attacks[suite_name]

    # ------------------------------------------------------------------ attempt
    def env_spec(self, task: Task) -> EnvSpec:
        return EnvSpec(task_id=task.id, benchmark=self.id, workdir="/")

    async def setup(self, task: Task, env: Environment, ctx: AttemptContext) -> None:
        return None

    async def conversation(self, task: Task, env: Environment | None, ctx: AttemptContext) -> Any:
        from .conversation import AgentDojoConversation

        return AgentDojoConversation(self.case(task.id))

    async def grade(self, task: Task, env: Environment | None, agent: AgentResult, ctx: AttemptContext) -> Grade:
        transcript = agent.transcript
        if isinstance(transcript, dict):
            transcript = Transcript.from_dict(transcript)
        if not isinstance(transcript, Transcript):
            raise VerifierError(f"task {task.id}: the agent's result has no conversation transcript to grade")
        from .grading import score

        case = self.case(task.id)
        try:
            utility, security = await asyncio.to_thread(score, case, transcript)
        except Exception as exc:
            raise VerifierError(f"task {task.id}: the package's run failed: {type(exc).__name__}: {exc}") from exc
        rewards = {UTILITY: float(utility)}
        if case.injection_task is not None:
            rewards[ATTACK_SUCCESS] = float(security)
        suite, user, injection = case_of(task.id)
        attacked = case.injection_task is not None
        details = {
            "utility": utility,
            "security": security if attacked else None,
            "live_result": transcript.info.get("package_result"),
            "suite": suite,
            "user_task": user,
            "injection_task": injection,
            "attack": self.config.attack if attacked else None,
            "injection_goal": str(case.injection_task.GOAL) if attacked else None,
            "injections": dict(case.injections),  # vector id -> the text the attack placed (the viewer marks it)
            "defense": self.config.defense,
            "benchmark_version": self.version,
        }
        return Grade(reward=float(utility), rewards=rewards, resolved=utility, details=details)

    def reference_solution(self, task: Task) -> Solution:
        """The user task's ground truth as the package's ``GroundTruthPipeline`` gives it."""
        return Solution(messages=self.case(task.id).ground_truth_messages(), info={"source": "ground_truth"})

    def summary_figures(self, rows: list[ResultRow]) -> dict[str, dict[str, dict[str, object]]]:
        """AgentDojo's figures (utility, utility under attack, targeted ASR; per suite and overall) with their
        intervals, for ``metrics.benchmark_figures`` of the summary."""
        return figures(rows)

    def finalize(self, run_dir: Path, rows: list[ResultRow]) -> dict[str, str]:
        path = Path(run_dir) / RESULTS_FILE
        report = {
            "benchmark_version": self.version,
            "attack": self.config.attack,
            "defense": self.config.defense,
            "pipeline_name": self.name,
            "results": figures(rows),
        }
        write_json(path, report)
        return {"agentdojo_results": str(path)}
