"""The plug-in interfaces (``typing.Protocol``, async) and the value types that cross them.

Plug-ins import only this module, :mod:`agentcompass.errors` and :mod:`agentcompass.kit`. A plug-in class is built as
``cls(config, ctx)`` where ``config`` is an instance of its ``config_class`` (a pydantic model validated
from the composed Hydra config, ``extra="forbid"``) and ``ctx`` is a :class:`ComponentContext`.
"""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, ClassVar, Protocol, runtime_checkable

from agentcompass.errors import NEVER_VERIFY_AFTER_ERROR, ErrorPolicy

# --------------------------------------------------------------------------- statuses
# str-valued: the values are what the files on disk hold, and ``status == "completed"`` keeps working.


class AttemptStatus(enum.StrEnum):
    """How one attempt ended (``result.json``, ``results.jsonl``): verified (a reward, possibly 0), or an error."""

    COMPLETED = "completed"
    ERROR = "error"


class RunStatus(enum.StrEnum):
    """A run (``run.json``, summary metadata), a request outcome, an orchestration. ``completed``: every task ran
    (rewards may be low); ``failed``: every task ended in an error, a report failed, or it crashed."""

    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"


class ExitStatus(enum.StrEnum):
    """How the agent phase ended (:attr:`AgentResult.exit_status`; a harness may add values of its own). Only
    ``error`` is an error; after the others the attempt is verified as usual."""

    COMPLETED = "completed"
    SUBMITTED = "submitted"
    LIMITS_EXCEEDED = "limits_exceeded"
    AGENT_TIMEOUT = "agent_timeout"
    ERROR = "error"             # the agent phase raised, and the benchmark's error policy verifies anyway


# --------------------------------------------------------------------------- shared context


@dataclass
class ComponentContext:
    """What every component receives when it is built (once per request)."""

    data_dir: Path
    run_id: str = ""
    request: str = ""
    benchmark_id: str = ""
    model_id: str = ""                 # the request's model name ("none" without a model)
    harness_id: str = ""
    environment_id: str = ""           # the request's environment id ("docker", "local"...)
    auto_install_dependencies: bool = False
    logger: logging.Logger = field(default_factory=lambda: logging.getLogger("agentcompass"))


# --------------------------------------------------------------------------- environments


@dataclass
class ExecResult:
    """Result of one command. ``exit_code`` is -1 when the command was killed by its timeout."""

    exit_code: int
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    duration_s: float = 0.0
    truncated: bool = False

    @property
    def output(self) -> str:
        """stdout followed by stderr (what a person at a terminal would have seen, roughly)."""
        if self.stderr and self.stdout:
            return self.stdout + ("" if self.stdout.endswith("\n") else "\n") + self.stderr
        return self.stdout or self.stderr


@dataclass
class EnvSpec:
    """What an environment provider needs to open one environment for one attempt."""

    task_id: str
    benchmark: str = ""
    image: str | None = None                 # an image name to use (pulled if the policy allows)
    dockerfile_dir: Path | None = None       # or a build context holding a Dockerfile
    compose_file: Path | None = None         # a Docker Compose file: a project whose "main" service is the env
    build_args: dict[str, str] = field(default_factory=dict)   # e.g. BASE_IMAGE for the demo tasks
    workdir: str = "/app"
    cpus: float | None = None
    memory_mb: int | None = None
    env: dict[str, str] = field(default_factory=dict)
    network: str | None = None               # None: provider default; "bridge" | "none"
    build_timeout_s: float | None = None
    labels: dict[str, str] = field(default_factory=dict)   # agentcompass.run_id / request / task
    keep: bool = False                       # keep_environment: close() leaves it in place


@runtime_checkable
class Environment(Protocol):
    """One sandbox for one attempt. Paths are the environment's own absolute paths ("/app/x").

    Optional: ``async prepare(command, *, what, timeout=None)`` stages an idempotent shell command that runs before
    anything else runs in or reads from the environment (the docker environment runs it in the same exec as the
    next command); its failure fails that operation with a SandboxError naming ``what``. Callers fall back to
    ``exec`` where it is missing."""

    id: str          # container id, workspace path...
    workdir: str     # default cwd of exec, as an environment path

    def path(self, p: str) -> str:
        """The form of environment path ``p`` to use inside commands run by :meth:`exec`."""
        ...

    async def exec(self, cmd: str | list[str], *, timeout: float | None = None, cwd: str | None = None,
                   env: dict[str, str] | None = None) -> ExecResult:
        """Run ``cmd`` (a string runs under ``bash -c``). On timeout the whole process tree is killed."""
        ...

    async def upload(self, src: Path, dst: str) -> None:
        """Copy a host file or directory to environment path ``dst`` (created, parents included). An environment
        may deliver it with its next operation (docker: in the next command's exec) as long as every later
        operation on it sees the file; a failure to place it then fails that operation."""
        ...

    async def download(self, src: str, dst: Path) -> None:
        """Copy an environment file or directory to host path ``dst``."""
        ...

    async def read_file(self, path: str) -> bytes: ...

    async def write_file(self, path: str, data: bytes | str, mode: int = 0o644) -> None: ...

    async def close(self) -> None:
        """Destroy the environment (unless it was opened with ``keep``). Idempotent."""
        ...

    def describe(self) -> dict[str, Any]:
        """Where the environment is (recorded in the attempt's result, e.g. under keep_environment)."""
        ...


@runtime_checkable
class EnvironmentProvider(Protocol):
    """Opens environments. ``name`` is the provider key used by ``provider_limits`` / ``env_open_qps``."""

    name: str

    async def open(self, spec: EnvSpec) -> Environment: ...

    async def cleanup(self, run_id: str | None = None) -> int:
        """Remove environments left behind by killed runs (all agentcompass ones when run_id is None)."""
        ...

    async def aclose(self) -> None:
        """Release provider-wide resources at the end of a request."""
        ...


# --------------------------------------------------------------------------- models


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float = 0.0
    n_calls: int = 0
    n_retries: int = 0

    def add(self, other: "Usage") -> "Usage":
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cached_tokens += other.cached_tokens
        self.cost_usd += other.cost_usd
        self.n_calls += other.n_calls
        self.n_retries += other.n_retries
        return self

    def to_dict(self) -> dict[str, Any]:
        return {"input": self.input_tokens, "output": self.output_tokens, "cached": self.cached_tokens,
                "cost_usd": round(self.cost_usd, 8), "calls": self.n_calls, "retries": self.n_retries}


@dataclass
class ToolCall:
    """One function call of a model reply. ``arguments`` is the JSON text the model produced (not parsed)."""

    id: str
    name: str
    arguments: str = "{}"

    def to_message(self) -> dict[str, Any]:
        """The call as an entry of an assistant message's ``tool_calls`` (OpenAI chat form)."""
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


@dataclass
class ModelResponse:
    text: str
    finish_reason: str = "stop"        # "stop" | "length" | "tool_calls" | provider value
    usage: Usage = field(default_factory=Usage)
    raw: Any = None
    tool_calls: list[ToolCall] = field(default_factory=list)


@runtime_checkable
class ModelClient(Protocol):
    """One model endpoint. ``usage`` accumulates every call made through this client."""

    model_id: str
    provider: str
    usage: Usage

    async def complete(self, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None,
                       **params: Any) -> ModelResponse:
        """Send a chat and return the reply.

        Messages use the OpenAI chat form on every protocol: ``{role, content}`` with roles system / user /
        assistant / tool; an assistant message may carry ``tool_calls`` (``[{id, type: "function", function:
        {name, arguments}}]``, see :meth:`ToolCall.to_message`) and a ``tool`` message answers one call
        (``{role: "tool", tool_call_id, content}``). ``tools`` are function tools in the OpenAI chat form
        (``{type: "function", function: {name, description, parameters}}``); each protocol receives them,
        the calls and their results in its own form, and the reply's calls come back as
        :attr:`ModelResponse.tool_calls`."""
        ...

    def fork(self) -> "ModelClient":
        """A client sharing the connection and limits but with its own ``usage`` (one per attempt)."""
        ...

    async def aclose(self) -> None: ...


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
    data: Any = None                       # benchmark-private payload (a SWE-bench row, a task dir...)


@dataclass
class Solution:
    """A reference solution: files to upload, then a command to run; or a submission (a patch)."""

    files: dict[str, Path] = field(default_factory=dict)    # environment path -> host path
    command: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    submission: str | None = None
    info: dict[str, Any] = field(default_factory=dict)     # facts about it (e.g. a prediction's model name)


@dataclass
class AgentResult:
    """What the agent phase produced. A limit or an agent timeout is not an error: it is still graded."""

    exit_status: str = ExitStatus.COMPLETED   # an ExitStatus value, or a harness's own
    submission: str | None = None
    n_turns: int = 0
    usage: Usage = field(default_factory=Usage)
    trajectory_path: str | None = None
    limit_hit: str | None = None          # step_limit | cost_limit | wall_time | max_turns | agent_timeout
    n_format_errors: int = 0
    info: dict[str, Any] = field(default_factory=dict)


@dataclass
class Grade:
    """A verification outcome. ``reward is None`` means no valid reward (a verifier error, scored 0)."""

    reward: float | None
    rewards: dict[str, float] = field(default_factory=dict)
    resolved: bool | None = None
    error: str | None = None
    log: str = ""
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class AttemptContext:
    """Per-attempt facts handed to harnesses and graders."""

    task: Task
    attempt: int
    attempt_dir: Path
    benchmark: "Benchmark"
    time_limit_s: float | None = None
    logger: logging.Logger = field(default_factory=lambda: logging.getLogger("agentcompass"))
    emit: Callable[[str, dict[str, Any]], None] = lambda kind, data: None
    auto_install_dependencies: bool = False


@runtime_checkable
class Benchmark(Protocol):
    id: str

    def load(self) -> list[Task]:
        """Tasks selected by the config (``sample_ids``, ``limit``...). Unknown sample ids are an error."""
        ...

    def env_spec(self, task: Task) -> EnvSpec:
        """How to open the environment of ``task``."""
        ...

    async def setup(self, task: Task, env: Environment, ctx: AttemptContext) -> None:
        """Prepare the environment before the agent runs (directories, task files)."""
        ...

    async def grade(self, task: Task, env: Environment, agent: AgentResult, ctx: AttemptContext) -> Grade:
        ...

    def reference_solution(self, task: Task) -> Solution: ...

    def finalize(self, run_dir: Path, rows: list[dict[str, Any]]) -> dict[str, str]:
        """Write run-level reports (predictions, benchmark report); return extra ``paths`` entries."""
        ...


# Optional Benchmark capabilities, looked up with getattr; without them a benchmark grades in the agent's environment.


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
    """The verify-after-error policy of ``benchmark``: its optional ``error_policy`` attribute (a table of
    :mod:`agentcompass.errors`, e.g. ``HARBOR_ERROR_POLICY``); default ``NEVER_VERIFY_AFTER_ERROR``."""
    return getattr(benchmark, "error_policy", None) or NEVER_VERIFY_AFTER_ERROR


@runtime_checkable
class Harness(Protocol):
    """``needs_environment`` (optional, default True): False for a harness that never touches the environment; with
    a :class:`FreshGrading` benchmark it runs with ``env=None`` and no agent environment opens."""

    id: str
    requires_model: ClassVar[bool]

    async def run(self, task: Task, env: Environment, model: ModelClient | None,
                  ctx: AttemptContext) -> AgentResult:
        ...


ProgressCallback = Callable[[Any], None | Awaitable[None]]
