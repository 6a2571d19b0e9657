"""The τ²-bench benchmark: ``tau2`` (any domain and split), ``tau2_airline``, ``tau2_retail``, ``tau2_telecom``.

Each task is one conversation (:class:`~.conversation.Tau2Conversation`) between the harness's agent and the
reference's user simulator (the ``user`` model role), over a fresh domain environment; grading is the reference
evaluator's (:func:`~.evaluate.evaluate`, NL assertions through the ``judge`` model role). The environment the
request opens is not used by the conversation (any provider works; ``local`` is cheapest).

Without a ``user`` model role (the request names no model and configures no role, e.g. ``oracle none``) the
conversation has no simulated user: the agent's text goes unanswered and ends the conversation (``agent_stop``), and
the benchmark's reference messages carry the user's own gold actions (telecom) as the user's calls. The reference
evaluator grades those transcripts as it grades any other.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from agentcompass.conversation import Transcript
from agentcompass.errors import ModelRoleUnavailableError, VerifierError
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
from agentcompass.kit import data_dir, select_ids

from . import data
from .shapes import RewardInfo, Tau2Task

# the reference's defaults (tau2/config.py: DEFAULT_LLM_USER, DEFAULT_LLM_NL_ASSERTIONS and their temperatures);
# each role's endpoint is the request's model's unless model_roles says otherwise
REFERENCE_ROLES: dict[str, dict[str, object]] = {
    "user": {"id": "gpt-4.1-2025-04-14", "params": {"temperature": 0.0}},
    "judge": {"id": "gpt-4.1-2025-04-14", "params": {"temperature": 0.0}},
}
SUCCESS_TOLERANCE = 1e-6  # the reference's is_successful: a reward within 1e-6 of 1


class Tau2Config(BaseModel):
    """Configuration of τ²-bench."""

    model_config = ConfigDict(extra="forbid")

    domain: Literal["airline", "retail", "telecom"] = Field("airline", description="The domain.")
    task_split: str = Field(
        "base", description="A split of the domain's split file (train, test, base; telecom: small, full), or all."
    )
    dataset_path: str | None = Field(None, description="A local tau2-bench checkout (src/ and data/); wins.")
    repo_url: str = Field(data.REPO_URL, description="The tau2-bench repository fetched without dataset_path.")
    revision: str = Field(data.REVISION, description="Its commit (the pinned one: tau2 1.0.1).")
    clone_timeout_s: float = Field(1800, gt=0, description="Timeout of each git command fetching it.")
    sample_ids: list[str] | None = Field(None, description="Task ids to run, in this order.")
    limit: int | None = Field(None, ge=0, description="Run at most this many tasks (after sample_ids).")
    max_steps: int = Field(200, ge=1, description="The orchestrator's step limit (the reference's default).")
    max_errors: int = Field(10, ge=1, description="Failed tool calls that end a conversation (reference default).")
    seed: int | None = Field(300, description="Base seed; sample j uses the reference runner's j-th trial seed.")
    agent_timeout_s: float | None = Field(None, gt=0, description="Wall-clock bound of one conversation.")
    image: str | None = Field(
        None, description="Image of the agent's environment (agent programs run in one; tool_agent needs none)."
    )


class Tau2Benchmark:
    """τ²-bench, one domain and split per request."""

    id = "tau2"
    config_class = Tau2Config
    model_roles: ClassVar[dict[str, dict[str, object]]] = REFERENCE_ROLES
    resumable_from_submission: ClassVar[bool] = True  # grading reads only the transcript

    def __init__(self, config: Tau2Config, ctx: ComponentContext | None = None) -> None:
        self.config = config
        self._data_dir = data_dir(ctx)
        self._root: Path | None = None
        self._gold: dict[str, tuple[Any, Any]] = {}  # the gold DB hashes by task id (the same for every attempt)

    # ------------------------------------------------------------------ data
    @property
    def root(self) -> Path:
        """The tau2-bench checkout (fetched on first use)."""
        if self._root is None:
            c = self.config
            self._root = data.checkout_root(c.dataset_path, c.repo_url, c.revision, self._data_dir, c.clone_timeout_s)
        return self._root

    @functools.cached_property
    def domain(self) -> Any:
        """The domain's environment factory (its source parsed once, its DB read once)."""
        from .domains import load_domain

        return load_domain(self.root, self.config.domain)

    def load(self) -> list[Task]:
        c = self.config
        rows = data.load_tasks(self.root, c.domain, c.task_split)
        by_id = {str(r["id"]): r for r in rows}
        rows = [by_id[i] for i in select_ids(list(by_id), c.sample_ids, c.limit, f"{c.domain} split {c.task_split!r}")]
        self.domain  # noqa: B018 - parse the domain's source now: a broken checkout fails before any attempt
        return [self._task(r) for r in rows]

    def _task(self, row: Tau2Task) -> Task:
        scenario = row.get("user_scenario") or {}
        instructions = scenario.get("instructions") if isinstance(scenario, dict) else None
        reason = instructions.get("reason_for_call") if isinstance(instructions, dict) else None
        return Task(
            id=str(row["id"]),
            instruction=str(reason or instructions or ""),
            workdir="/",
            agent_timeout_s=self.config.agent_timeout_s,
            metadata={"domain": self.config.domain, "split": self.config.task_split},
            data=row,
        )

    # ------------------------------------------------------------------ attempt
    def env_spec(self, task: Task) -> EnvSpec:
        return EnvSpec(task_id=task.id, benchmark=self.id, image=self.config.image, workdir="/")

    async def setup(self, task: Task, env: Environment, ctx: AttemptContext) -> None:
        return None

    async def conversation(self, task: Task, env: Environment | None, ctx: AttemptContext) -> Any:
        """The attempt's conversation over a fresh domain environment; the ``user`` role simulates the user."""
        from .conversation import Tau2Conversation

        try:
            user = ctx.model_role("user")
        except ModelRoleUnavailableError:
            user = None
        c = self.config
        return Tau2Conversation(
            self.root,
            self.domain(),
            task.data,
            user,
            max_steps=c.max_steps,
            max_errors=c.max_errors,
            seed=data.trial_seed(c.seed, ctx.sample),
        )

    async def grade(self, task: Task, env: Environment | None, agent: AgentResult, ctx: AttemptContext) -> Grade:
        from .evaluate import evaluate

        transcript = agent.transcript
        if isinstance(transcript, dict):
            transcript = Transcript.from_dict(transcript)
        if not isinstance(transcript, Transcript):
            raise VerifierError(f"task {task.id}: the agent's result has no conversation transcript to grade")
        judge = _judge(ctx)
        result = await evaluate(task.data, transcript, self.domain, judge, root=self.root, gold_hashes=self._gold)
        info = result.to_dict()
        reward = float(result.reward)
        return Grade(
            reward=reward,
            rewards=_components(info),
            resolved=abs(reward - 1.0) <= SUCCESS_TOLERANCE,
            details={"reward_info": info},
        )

    def reference_solution(self, task: Task) -> Solution:
        from .oracle import reference_messages

        return Solution(messages=reference_messages(task.data), info={"source": "evaluation_criteria"})

    def finalize(self, run_dir: Path, rows: list[dict[str, object]]) -> dict[str, str]:
        return {}


def _judge(ctx: AttemptContext) -> Any:
    """The NL-assertion judge over the ``judge`` model role, or None when the request has none."""
    try:
        client = ctx.model_role("judge")
    except ModelRoleUnavailableError:
        return None

    async def judge(messages: list[dict[str, str]]) -> str:
        return (await client.complete(messages)).text

    return judge


def _components(info: RewardInfo) -> dict[str, float]:
    """The reward's components (``reward_breakdown``: DB, ENV_ASSERTION, COMMUNICATE, ACTION, NL_ASSERTION)."""
    breakdown = info.get("reward_breakdown") or {}
    return {str(k).lower(): float(v) for k, v in breakdown.items() if isinstance(v, int | float)}
