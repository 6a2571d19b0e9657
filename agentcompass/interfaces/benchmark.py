"""Benchmarks and harnesses: tasks, solutions, agent results, grades and the attempt's context."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from agentcompass.errors import (
    ErrorPolicy,
    GatewayUnavailableError,
    ModelRoleUnavailableError,
)

from .capabilities import ERROR_POLICY
from .environment import Environment, EnvSpec
from .model import ModelClient, Usage
from .status import ExitStatus

# --------------------------------------------------------------------------- benchmarks


@dataclass
class Task:
    """One benchmark sample."""

    id: str
    instruction: str
    image: str | None = None
    dockerfile_dir: Path | None = None
    workdir: str = "/app"
    cpus: float | None = None
    memory_mb: int | None = None
    agent_timeout_s: float | None = None
    verifier_timeout_s: float | None = None
    build_timeout_s: float | None = None
    env: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    data: Any = None  # benchmark-private payload (a SWE-bench row, a task dir...)


@dataclass
class Solution:
    """A reference solution: files to upload, then a command to run; or a submission (a patch)."""

    files: dict[str, Path] = field(default_factory=dict)  # environment path -> host path
    command: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    submission: str | None = None
    info: dict[str, Any] = field(default_factory=dict)  # facts about it (e.g. a prediction's model name)
    messages: list[dict[str, Any]] = field(default_factory=list)  # a conversation's agent messages, in order


@dataclass
class AgentResult:
    """What the agent phase produced. A limit or an agent timeout is not an error: it is still graded."""

    exit_status: str = ExitStatus.COMPLETED  # an ExitStatus value, or a harness's own
    submission: str | None = None
    n_turns: int = 0
    usage: Usage = field(default_factory=Usage)
    trajectory_path: str | None = None
    limit_hit: str | None = None  # step_limit | cost_limit | wall_time | max_turns | agent_timeout
    n_format_errors: int = 0
    info: dict[str, Any] = field(default_factory=dict)
    transcript: Any = None  # a tool-use conversation's agentcompass.conversation.Transcript (what grading reads)


@dataclass
class Grade:
    """A verification outcome. ``reward is None`` means no valid reward (a verifier error, scored 0)."""

    reward: float | None
    rewards: dict[str, float] = field(default_factory=dict)
    resolved: bool | None = None
    error: str | None = None
    log: str = ""
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GatewayEndpoint:
    """Where an agent inside one environment reaches the model gateway for one attempt (``await ctx.gateway(env)``).

    The gateway serves ``POST /v1/messages`` (Anthropic), ``/v1/responses`` and ``/v1/chat/completions`` (OpenAI),
    ``/v1beta/models/{model}:generateContent`` / ``:streamGenerateContent`` (the Gemini API; ``GOOGLE_GEMINI_BASE_URL``
    is ``base_url``), streamed or not, and ``GET /v1/models``, forwarding each call through the attempt's model client
    (usage, cost, retries and limits counted there, every call recorded). ``token`` is the attempt's own credential
    (send it as ``Authorization: Bearer``, ``x-api-key`` or ``x-goog-api-key``); the real API key never enters the
    environment."""

    base_url: str  # root URL reachable from inside the environment, e.g. "http://172.17.0.1:40123"
    token: str  # per-attempt random credential; revoked when the attempt ends
    model: str  # the request's model id (the name an agent asks for is replaced by it anyway)
    upstream_protocol: str  # the protocol of the request's endpoint
    protocols: tuple[str, ...] = ("anthropic-messages", "openai-responses", "openai-chat", "google-genai")  # served

    @property
    def mcp_url(self) -> str:
        """The attempt's tool-use conversation (``ctx.conversation``) as an MCP server (streamable HTTP, the same
        token as a bearer credential): its tools plus ``send_message_to_user``; 404 while it has none."""
        return self.base_url + "/mcp"

    @property
    def openai_base_url(self) -> str:
        """The ``OPENAI_BASE_URL`` form (with ``/v1``)."""
        return self.base_url + "/v1"

    @property
    def anthropic_base_url(self) -> str:
        """The ``ANTHROPIC_BASE_URL`` form (the root)."""
        return self.base_url

    def __repr__(self) -> str:
        return f"GatewayEndpoint({self.base_url}, model={self.model!r}, token=<redacted>)"


def _no_model_role(role: str) -> ModelClient:
    raise ModelRoleUnavailableError(
        f"no model role {role!r} in this attempt: the request configures none (model_roles)"
    )


async def _no_gateway(env: Any = None) -> GatewayEndpoint:
    raise GatewayUnavailableError(
        "no model gateway for this attempt: the request has no model (model=none), or the harness runs where the "
        "orchestrator gives no gateway"
    )


@dataclass
class AttemptContext:
    """Per-attempt facts handed to harnesses and graders.

    ``gateway(env)``: the model gateway endpoint of this attempt reachable from inside ``env`` (None: from this
    host); started with the request's first such call. Raises GatewayUnavailableError (no model),
    GatewayUnreachableError (the environment cannot reach this host)."""

    task: Task
    attempt: int
    attempt_dir: Path
    benchmark: Benchmark
    time_limit_s: float | None = None
    logger: logging.Logger = field(default_factory=lambda: logging.getLogger("agentcompass"))
    emit: Callable[[str, dict[str, Any]], None] = lambda kind, data: None
    auto_install_dependencies: bool = False
    sample: int = 1  # which independent sample of the task (1..n_attempts) this attempt is
    gateway: Callable[[Environment | None], Awaitable[GatewayEndpoint]] = _no_gateway
    # model_role(name): this attempt's client of a named model role ("user", "judge", ...): its calls go through
    # the model layer like the main model's (retries, limits, cache, replay, budgets, model_calls.jsonl with the
    # role, usage per role). Raises ModelRoleUnavailableError when the request configures no such role.
    model_role: Callable[[str], ModelClient] = _no_model_role
    conversation: Any = None  # a tool-use benchmark's agentcompass.conversation.Conversation for this attempt


@runtime_checkable
class Benchmark(Protocol):
    id: str

    def load(self) -> list[Task]:
        """Tasks selected by the config: ``sample_ids`` (exactly those), then ``limit`` (the first N).

        Raises: ConfigError (an unknown sample id, named with the valid ones), DatasetError (a dataset or task
        that cannot be read), DependencyError (a missing extra, e.g. for parquet)."""
        ...

    def env_spec(self, task: Task) -> EnvSpec:
        """How to open the environment of ``task`` (``task_id`` is the task's id). Raises: ConfigError."""
        ...

    async def setup(self, task: Task, env: Environment, ctx: AttemptContext) -> None:
        """Prepare the environment before the agent runs (directories, task files). Raises: SandboxError."""
        ...

    async def grade(self, task: Task, env: Environment, agent: AgentResult, ctx: AttemptContext) -> Grade:
        """Verify: a :class:`Grade` (reward 0 for a wrong answer is a valid reward, not an error).

        Raises: VerifierError (the verifier ran but gave no valid reward), SandboxError."""
        ...

    def reference_solution(self, task: Task) -> Solution:
        """What the ``oracle`` harness applies (it should score 1). Raises: DatasetError (the task has none)."""
        ...

    def finalize(self, run_dir: Path, rows: list[dict[str, Any]]) -> dict[str, str]:
        """Write run-level reports (predictions, benchmark report); return extra ``paths`` entries."""
        ...


# The shapes of the optional Benchmark methods (the capabilities GRADING_ENV_SPEC, GRADE_WITHOUT_ENV and
# SUPPLIED_SOLUTION below); without them a benchmark grades in the agent's environment.


@runtime_checkable
class FreshGrading(Protocol):
    """``grading_env_spec(task)``: grade in a NEW environment opened from this spec (None, or absent: in the
    agent's). The agent's environment closes after the agent phase and its checkpoint; the grading one opens through
    the same provider, slot and ``env_open_qps``. A checkpointed attempt is re-graded without any agent environment."""

    def grading_env_spec(self, task: Task) -> EnvSpec | None: ...


@runtime_checkable
class GradingWithoutEnvironment(Protocol):
    """``grade_without_env``: the grade when it needs no environment (an empty patch), else None (grade normally)."""

    def grade_without_env(self, task: Task, agent: AgentResult, ctx: AttemptContext) -> Grade | None: ...


@runtime_checkable
class SuppliedSolutions(Protocol):
    """``supplied_solution(task)``: the solution given with the inputs (a predictions file), None when it has none."""

    def supplied_solution(self, task: Task) -> Solution | None: ...


def error_policy(benchmark: Any) -> ErrorPolicy:
    """The verify-after-error policy of ``benchmark`` (:data:`ERROR_POLICY`)."""
    return ERROR_POLICY.of(benchmark)


@runtime_checkable
class Harness(Protocol):
    """An agent. Optional: :data:`REQUIRES_MODEL`, :data:`NEEDS_ENVIRONMENT`, :data:`HARNESS_DESCRIBE`."""

    id: str

    async def run(self, task: Task, env: Environment, model: ModelClient | None, ctx: AttemptContext) -> AgentResult:
        """Run the agent on ``task`` within ``ctx.time_limit_s`` (the caller cancels it at the limit). A step,
        cost or turn limit is no error: it ends in an :class:`AgentResult` with ``limit_hit`` set.

        Raises: AgentError (the harness itself failed), ModelError / SandboxError (from the model or the
        environment, unchanged), DependencyError, ConfigError."""
        ...


ProgressCallback = Callable[[Any], None | Awaitable[None]]
