"""The plug-in contract: the interfaces (``typing.Protocol``, async), the value types that cross them, the status
enums, and the optional capabilities with their defaults.

Plug-ins import only this module, :mod:`agentcompass.errors` and :mod:`agentcompass.kit`. Every plug-in class is
a :class:`Component`: built as ``cls(config, ctx)`` where ``config`` is an instance of its ``config_class`` (a
pydantic model validated from the composed Hydra config, ``extra="forbid"``) and ``ctx`` is a
:class:`ComponentContext`. What a component may leave out is a :class:`Capability` (:data:`CAPABILITIES`): the
core reads each one through :meth:`Capability.of`, which applies the declared default. The conformance suites in
:mod:`agentcompass.testing.conformance` check an implementation against this contract (``docs/plugins.md``).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

from agentcompass.errors import (
    NEVER_VERIFY_AFTER_ERROR,
    ErrorPolicy,
    GatewayUnavailableError,
    ModelRoleUnavailableError,
)

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
    STOPPED_BUDGET = "stopped_budget"  # cost_limit_usd / token_limit reached: no attempt started after it


class ExitStatus(enum.StrEnum):
    """How the agent phase ended (:attr:`AgentResult.exit_status`; a harness may add values of its own). Only
    ``error`` is an error; after the others the attempt is verified as usual."""

    COMPLETED = "completed"
    SUBMITTED = "submitted"
    LIMITS_EXCEEDED = "limits_exceeded"
    AGENT_TIMEOUT = "agent_timeout"
    ERROR = "error"  # the agent phase raised, and the benchmark's error policy verifies anyway


# --------------------------------------------------------------------------- shared context


@dataclass
class ComponentContext:
    """What every component receives when it is built (once per request)."""

    data_dir: Path
    run_id: str = ""
    request: str = ""
    benchmark_id: str = ""
    model_id: str = ""  # the request's model name ("none" without a model)
    harness_id: str = ""
    environment_id: str = ""  # the request's environment id ("docker", "local"...)
    auto_install_dependencies: bool = False
    logger: logging.Logger = field(default_factory=lambda: logging.getLogger("agentcompass"))
    # for a model client: whether the request's harness needs a model (``requires_model``); when False (oracle,
    # nop), what only a call needs (an API key) is checked at the first call, not when the client is built
    model_required: bool = True


@runtime_checkable
class Component(Protocol):
    """What every plug-in class is: a benchmark, a harness, an environment provider or a model client.

    - ``config_class``: a pydantic model (``extra="forbid"``, every field defaulted and described). The composed
      config of the component's group, without ``_target_`` (and without ``id``, except for models), is validated
      into it; an unknown key or a bad value is a :class:`~agentcompass.errors.ConfigError` naming the key.
    - ``cls(config, ctx)``: built once per request with the validated config and a :class:`ComponentContext`.
    - ``id``: the id it was selected by (its file name in ``conf/<group>/``), set by the registry after
      construction; a model client has ``model_id`` (the name sent to the endpoint) instead.
    """

    id: str
    config_class: ClassVar[type[Any]]

    def __init__(self, config: Any, ctx: ComponentContext) -> None:
        """Raises: ConfigError for values that are valid one by one but not together (or not with ``ctx``),
        DependencyError for a missing optional extra."""
        ...


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


@dataclass(frozen=True)
class Mount:
    """A host directory seen inside the environment at ``target`` (an absolute environment path). Docker: a bind
    mount (read-only when ``read_only``); local: ``target`` in the workspace is a symbolic link to ``source``."""

    source: Path
    target: str
    read_only: bool = True


@dataclass
class EnvSpec:
    """What an environment provider needs to open one environment for one attempt."""

    task_id: str
    benchmark: str = ""
    image: str | None = None  # an image name to use (pulled if the policy allows)
    dockerfile_dir: Path | None = None  # or a build context holding a Dockerfile
    compose_file: Path | None = None  # a Docker Compose file: a project whose "main" service is the env
    build_args: dict[str, str] = field(default_factory=dict)  # e.g. BASE_IMAGE for the demo tasks
    workdir: str = "/app"
    cpus: float | None = None
    memory_mb: int | None = None
    env: dict[str, str] = field(default_factory=dict)
    network: str | None = None  # None: provider default; "bridge" | "none"
    build_timeout_s: float | None = None
    labels: dict[str, str] = field(default_factory=dict)  # agentcompass.run_id / request / task
    keep: bool = False  # keep_environment: close() leaves it in place
    mounts: list[Mount] = field(default_factory=list)  # host directories the environment sees (ENV_MOUNTS)
    # host paths the agent must not read (the benchmark's task directories: tests, solutions); an environment
    # whose commands run on this host hides them where it can (local: hide_host_paths)
    private_paths: list[Path] = field(default_factory=list)


@runtime_checkable
class Environment(Protocol):
    """One sandbox for one attempt. Paths are the environment's own absolute paths ("/app/x").

    Optional: ``async prepare(command, *, what, timeout=None)`` stages an idempotent shell command that runs before
    anything else runs in or reads from the environment (the docker environment runs it in the same exec as the
    next command); its failure fails that operation with a SandboxError naming ``what``. Callers fall back to
    ``exec`` where it is missing."""

    id: str  # container id, workspace path...
    workdir: str  # default cwd of exec, as an environment path

    def path(self, p: str) -> str:
        """The form of environment path ``p`` to use inside commands run by :meth:`exec`."""
        ...

    async def exec(
        self,
        cmd: str | list[str],
        *,
        timeout: float | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
    ) -> ExecResult:
        """Run ``cmd`` (a string runs under ``bash -c``, a list is an argv) in ``cwd`` (default :attr:`workdir`)
        with ``env`` over the spec's variables. stdout and stderr come back separately, undecodable bytes as
        U+FFFD. On timeout the whole process tree is killed and the output so far is returned (``timed_out``,
        ``exit_code`` -1); a cancelled call kills its tree too.

        Raises: SandboxError when the environment is closed or cannot run commands. A command's own failure (a
        non-zero exit, a missing binary: 127, a missing ``cwd``) is an :class:`ExecResult`, never an exception."""
        ...

    async def upload(self, src: Path, dst: str) -> None:
        """Copy a host file or directory to environment path ``dst`` (created, parents included); a relative
        ``dst`` is under :attr:`workdir`. Contents, executable bits and (where the environment has them) symlinks
        are kept. An environment may deliver it with its next operation (docker: in the next command's exec) as
        long as every later operation on it sees the file; a failure to place it then fails that operation.

        Raises: FileNotFoundError (no ``src``), PathEscapeError (``dst`` would leave the environment's root),
        SandboxError."""
        ...

    async def download(self, src: str, dst: Path) -> None:
        """Copy an environment file or directory to host path ``dst``.

        Raises: FileNotFoundError (no ``src``), PathEscapeError (a member, or a symlink, leading out of ``src``:
        nothing is written outside ``dst`` and no host file is reached through a link), SandboxError."""
        ...

    async def read_file(self, path: str) -> bytes:
        """The bytes of environment file ``path``.

        Raises: FileNotFoundError, IsADirectoryError, PathEscapeError, SandboxError."""
        ...

    async def write_file(self, path: str, data: bytes | str, mode: int = 0o644) -> None:
        """Write ``data`` (str: UTF-8) to ``path`` with ``mode``, parents created.

        Raises: PathEscapeError, SandboxError."""
        ...

    async def close(self) -> None:
        """Destroy the environment (unless it was opened with ``keep``). Idempotent: a second call does nothing.
        Any later use raises SandboxError."""
        ...

    def describe(self) -> dict[str, Any]:
        """Where the environment is (recorded in the attempt's result, e.g. under keep_environment)."""
        ...


@runtime_checkable
class EnvironmentProvider(Protocol):
    """Opens environments. ``name`` is the provider key used by ``provider_limits`` / ``env_open_qps``.
    Optional: ``prebuild(spec)`` (:data:`PREBUILD`)."""

    name: str

    async def open(self, spec: EnvSpec) -> Environment:
        """A new environment for ``spec``.

        Raises: ImageError (an image that can be neither pulled nor built; not retried), ConfigError (a spec this
        provider cannot honour, e.g. a compose file on the host), SandboxError (retried)."""
        ...

    async def cleanup(self, run_id: str | None = None) -> int:
        """Remove environments left behind by killed runs (all agentcompass ones when run_id is None)."""
        ...

    async def aclose(self) -> None:
        """Release provider-wide resources at the end of a request."""
        ...


# --------------------------------------------------------------------------- models


def add_cost(a: float | None, b: float | None) -> float | None:
    """The sum of two costs in USD; unknown (None) when either is unknown (an unknown price is never $0)."""
    return None if a is None or b is None else a + b


def sum_cost(values: Any) -> float | None:
    """The sum of costs in USD (None entries make it unknown; no entries: 0)."""
    total: float | None = 0.0
    for value in values:
        total = add_cost(total, value)
    return total


@dataclass
class Usage:
    """Tokens and cost of model calls. ``cost_usd`` is None when a call's price is unknown (no ``prices`` and the
    model id not in the price table). Calls answered from the response cache (or a replayed run) are not in the
    token and cost counts: ``cache_hits`` counts them and ``cost_saved_usd`` is what they cost when first made."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = 0.0
    n_calls: int = 0
    n_retries: int = 0
    cache_hits: int = 0
    cost_saved_usd: float | None = 0.0

    def add(self, other: Usage) -> Usage:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cached_tokens += other.cached_tokens
        self.cost_usd = add_cost(self.cost_usd, other.cost_usd)
        self.n_calls += other.n_calls
        self.n_retries += other.n_retries
        self.cache_hits += other.cache_hits
        self.cost_saved_usd = add_cost(self.cost_saved_usd, other.cost_saved_usd)
        return self

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def to_dict(self) -> dict[str, Any]:
        return {
            "input": self.input_tokens,
            "output": self.output_tokens,
            "cached": self.cached_tokens,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 8),
            "calls": self.n_calls,
            "retries": self.n_retries,
            "cache_hits": self.cache_hits,
            "cost_saved_usd": None if self.cost_saved_usd is None else round(self.cost_saved_usd, 8),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Usage:
        """The inverse of :meth:`to_dict` (missing keys: 0; a missing cost: 0, a null cost: unknown)."""
        data = data or {}
        return cls(
            input_tokens=int(data.get("input", 0) or 0),
            output_tokens=int(data.get("output", 0) or 0),
            cached_tokens=int(data.get("cached", 0) or 0),
            cost_usd=data.get("cost_usd", 0.0),
            n_calls=int(data.get("calls", 0) or 0),
            n_retries=int(data.get("retries", 0) or 0),
            cache_hits=int(data.get("cache_hits", 0) or 0),
            cost_saved_usd=data.get("cost_saved_usd", 0.0),
        )


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
    finish_reason: str = "stop"  # "stop" | "length" | "tool_calls" | provider value
    usage: Usage = field(default_factory=Usage)
    raw: Any = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    source: str = "endpoint"  # endpoint | cache (the response cache) | replay (a recorded run's call)


@runtime_checkable
class ModelClient(Protocol):
    """One model endpoint. ``usage`` accumulates every call made through this client."""

    model_id: str
    provider: str
    usage: Usage

    async def complete(
        self, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None, **params: Any
    ) -> ModelResponse:
        """Send a chat and return the reply.

        Messages use the OpenAI chat form on every protocol: ``{role, content}`` with roles system / user /
        assistant / tool; an assistant message may carry ``tool_calls`` (``[{id, type: "function", function:
        {name, arguments}}]``, see :meth:`ToolCall.to_message`) and a ``tool`` message answers one call
        (``{role: "tool", tool_call_id, content}``). ``tools`` are function tools in the OpenAI chat form
        (``{type: "function", function: {name, description, parameters}}``); each protocol receives them,
        the calls and their results in its own form, and the reply's calls come back as
        :attr:`ModelResponse.tool_calls`.

        Raises: ModelRetryableError (429, 408, 5xx, a dropped connection, a timeout: after the client's own
        retries are used up), ContextLengthExceededError, ModelError (any other refusal: 400, 401, 403, 404;
        never retried). The messages never contain the API key."""
        ...

    def fork(self, attempt: AttemptContext | None = None) -> ModelClient:
        """A client sharing the connection and limits but with its own ``usage`` (one per attempt). Given the
        attempt's context, the client records each call in ``<attempt_dir>/model_calls.jsonl`` (``docs/gateway.md``),
        keys its calls by the attempt's sample in the response cache and, with ``--replay``, answers them from that
        task's recorded calls."""
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


# --------------------------------------------------------------------------- optional capabilities

T = TypeVar("T")


@dataclass(frozen=True)
class Capability(Generic[T]):
    """An attribute or method a component of ``kind`` may leave out, and what leaving it out means (``default``).

    The core reads every capability through :meth:`of`, never with a bare ``getattr``; the list of them is
    :data:`CAPABILITIES` (``docs/plugins.md`` shows it as a table)."""

    kind: str  # benchmark | harness | model | provider | environment
    name: str  # the attribute's name on the component
    default: T
    doc: str
    accepts: tuple[type, ...] = ()  # the types of a value capability; () for a method

    def of(self, component: Any) -> T:
        """The component's value (a method comes back bound), or the default when it has none (or is None)."""
        value = getattr(component, self.name, None) if component is not None else None
        return self.default if value is None else value

    def problem(self, component: Any) -> str | None:
        """Why the component's value is not of the declared form (a method, or one of ``accepts``), else None."""
        value = getattr(component, self.name, None)
        if value is None or (callable(value) if not self.accepts else isinstance(value, self.accepts)):
            return None
        wanted = "a method" if not self.accepts else " or ".join(t.__name__ for t in self.accepts)
        return f"{self.kind} capability {self.name!r} is {value!r}; declared: {wanted}"


RESUMABLE_FROM_SUBMISSION: Capability[bool] = Capability(
    "benchmark",
    "resumable_from_submission",
    False,
    "grading needs only the agent's result: under reuse with checkpoint_resume, an attempt whose agent phase "
    "finished is verified again without running the agent again",
    (bool,),
)
ERROR_POLICY: Capability[ErrorPolicy] = Capability(
    "benchmark",
    "error_policy",
    NEVER_VERIFY_AFTER_ERROR,
    "the verify-after-error table of agentcompass.errors (e.g. HARBOR_ERROR_POLICY): which failed attempts are "
    "still verified and whether that reward counts; default: an error ends the attempt",
    (Mapping,),
)
GRADING_ENV_SPEC: Capability[Callable[[Task], EnvSpec | None] | None] = Capability(
    "benchmark",
    "grading_env_spec",
    None,
    "grading_env_spec(task) -> EnvSpec | None (FreshGrading): grade in a NEW environment from this spec; "
    "absent or None: grade in the agent's",
)
GRADE_WITHOUT_ENV: Capability[Callable[[Task, AgentResult, AttemptContext], Grade | None] | None] = Capability(
    "benchmark",
    "grade_without_env",
    None,
    "grade_without_env(task, agent, ctx) -> Grade | None (GradingWithoutEnvironment): the grade when it needs no "
    "environment (an empty patch); None: grade normally",
)
SUPPLIED_SOLUTION: Capability[Callable[[Task], Solution | None] | None] = Capability(
    "benchmark",
    "supplied_solution",
    None,
    "supplied_solution(task) -> Solution | None (SuppliedSolutions): the solution given with the inputs (a "
    "predictions file), read by the predictions harness; absent: the benchmark supplies none",
)
SUMMARY_FIGURES: Capability[Callable[[list[dict[str, Any]]], dict[str, Any]] | None] = Capability(
    "benchmark",
    "summary_figures",
    None,
    "summary_figures(rows) -> dict: the benchmark's own figures of the run's rows (each with its interval, "
    "kit.share_with_interval), put under metrics.benchmark_figures of summary.json; absent: none",
)
REQUIRES_MODEL: Capability[bool] = Capability(
    "harness", "requires_model", False, "True: the request must name a model (model 'none' is a ConfigError)", (bool,)
)
NEEDS_ENVIRONMENT: Capability[bool] = Capability(
    "harness",
    "needs_environment",
    True,
    "False: the harness never touches the environment; with a FreshGrading benchmark it runs with env=None and "
    "no agent environment opens",
    (bool,),
)
HARNESS_DESCRIBE: Capability[Callable[[], dict[str, Any]] | None] = Capability(
    "harness",
    "describe",
    None,
    "describe() -> dict: what the harness is made of (e.g. the prompts it uses), recorded redacted as "
    "harness_info in run.json and the summary's metadata",
)
ENV_MOUNTS: Capability[Callable[[Task], list[Mount]] | None] = Capability(
    "harness",
    "env_mounts",
    None,
    "env_mounts(task) -> list[Mount]: host directories the agent's environment must see (added to its EnvSpec "
    "before it opens; e.g. an agent's binaries, read-only, so they are never copied per attempt); absent: none",
)
CONTEXT_LIMIT: Capability[int | None] = Capability(
    "model", "context_limit", None, "the model's context window in tokens, read by harnesses; None: unknown", (int,)
)
SET_CONCURRENCY_LIMIT: Capability[Callable[[int | None], None] | None] = Capability(
    "model",
    "set_concurrency_limit",
    None,
    "set_concurrency_limit(n): at most n requests in flight, applied from provider_limits[<model provider>]; "
    "absent: such a limit is reported as not applicable",
)
SET_ATTEMPT_LIMITS: Capability[Callable[[int | None, int | None], None] | None] = Capability(
    "model",
    "set_attempt_limits",
    None,
    "set_attempt_limits(max_model_calls, max_tokens_total): this client's calls are refused with "
    "AttemptLimitReached once it made that many calls or spent that many tokens (execution.attempt_max_model_calls "
    "/ attempt_max_tokens_total); absent: those settings are a ConfigError",
)
SET_ATTEMPT_COST_LIMIT: Capability[Callable[[float | None], None] | None] = Capability(
    "model",
    "set_attempt_cost_limit",
    None,
    "set_attempt_cost_limit(usd): each attempt's calls raise AttemptCostLimitReached once they cost usd "
    "(execution.attempt_cost_limit_usd); absent: that setting is a ConfigError",
)
PRICE_INFO: Capability[dict[str, Any] | None] = Capability(
    "model",
    "price_info",
    None,
    "the model's prices and their source (model.prices, the price table with its version, or unknown), "
    "recorded in summary.json; absent: not recorded",
    (dict,),
)
MAX_CONCURRENT: Capability[int | None] = Capability(
    "provider",
    "max_concurrent",
    None,
    "at most this many environments of the provider open at once (a slot limit of the pool); None: no limit",
    (int,),
)
PREBUILD: Capability[Callable[[EnvSpec], Awaitable[str]] | None] = Capability(
    "provider",
    "prebuild",
    None,
    "async prebuild(spec) -> image: pull or build what open(spec) would start from, without starting it "
    "(agentcompass images prebuild, on every node of a Ray cluster); absent: the provider has no images to build",
)
ON_HOST: Capability[bool] = Capability(
    "environment",
    "on_host",
    False,
    "True: commands run on this host (the local environment), so nothing is installed with a system package "
    "manager and messages say 'this host' rather than an image",
    (bool,),
)
PREPARE: Capability[Callable[..., Awaitable[None]] | None] = Capability(
    "environment",
    "prepare",
    None,
    "async prepare(command, *, what, timeout): stage a set-up shell command to run before the next command or "
    "file operation (docker: in the same exec, saving a round trip); its failure fails that operation with a "
    "SandboxError naming what; absent: the command is run at once with exec",
)
WAIT_REMOVED: Capability[Callable[[], Awaitable[None]] | None] = Capability(
    "provider",
    "wait_removed",
    None,
    "async wait_removed(): wait until environments this provider closes in the background are gone (a Ray "
    "worker's provider outlives the request); absent: close() removes an environment before it returns",
)
READ_HEAD: Capability[Callable[[str, int], Awaitable[bytes]] | None] = Capability(
    "environment",
    "read_head",
    None,
    "read_head(path, n) -> bytes: the first n bytes of a file, confined like read_file; absent: cut inside the "
    "environment with head -c, then downloaded",
)
HOST_ADDRESS: Capability[Callable[[], Awaitable[str]] | None] = Capability(
    "environment",
    "host_address",
    None,
    "async host_address() -> str: the IP address of this host as seen from inside the environment (docker: its "
    "network's gateway; local: 127.0.0.1), where the model gateway listens for it; absent: the gateway cannot be "
    "reached from it (GatewayUnreachableError)",
)
NET_NAMESPACE: Capability[Callable[[], Awaitable[str | None]] | None] = Capability(
    "environment",
    "net_namespace",
    None,
    "async net_namespace() -> str | None: for an environment without internet, the path of its network namespace "
    "on this host (/proc/<pid>/ns/net), where the model gateway listens for it on 127.0.0.1 (reachable from it "
    "alone); None or absent: the gateway listens on host_address()",
)
OUT_OF_MEMORY: Capability[Callable[[], str | None] | None] = Capability(
    "environment",
    "out_of_memory",
    None,
    "out_of_memory() -> str | None: what the kernel's OOM killer did in the environment so far ('the kernel "
    "killed 1 process ... at its memory limit (64 MB)'), None when nothing; an attempt that fails or scores below "
    "full after it ends in OutOfMemoryError; absent: not known",
)
END_PROCESSES: Capability[Callable[[], Awaitable[list[str]]] | None] = Capability(
    "environment",
    "end_processes",
    None,
    "async end_processes() -> list[str]: end every process the agent started that still runs (detached, nohup / "
    "setsid, tmux, background), so none runs into verification (execution.end_agent_processes); the command lines "
    "of those ended; absent: nothing can outlive a command there",
)
CALL_RECORDER: Capability[Any] = Capability(
    "model",
    "recorder",
    None,
    "the attempt's call record (model_calls.jsonl) of a forked model client: the model gateway adds each session's "
    "token to its redactions; absent or None: nothing to redact there",
    (object,),
)

CONVERSATION: Capability[Callable[[Task, Environment | None, AttemptContext], Awaitable[Any]] | None] = Capability(
    "benchmark",
    "conversation",
    None,
    "async conversation(task, env, ctx) -> Conversation: the benchmark drives a tool-use conversation with the "
    "agent (its tools, a simulated or scripted user); only harnesses that converse run it, and grade() reads "
    "agent.transcript; absent: the benchmark is not a tool-use benchmark",
)
CONVERSES: Capability[bool] = Capability(
    "harness",
    "converses",
    False,
    "True: the harness drives ctx.conversation (tool-use benchmarks); its AgentResult carries the transcript",
    (bool,),
)

MODEL_ROLES: Capability[dict[str, Any] | None] = Capability(
    "benchmark",
    "model_roles",
    None,
    "{role: model settings}: the model roles the benchmark asks for (ctx.model_role) and each one's default as its "
    "reference has it (e.g. the user simulator's model); model_roles of the request override them",
    (dict,),
)


CAPABILITIES: tuple[Capability[Any], ...] = (
    RESUMABLE_FROM_SUBMISSION,
    ERROR_POLICY,
    GRADING_ENV_SPEC,
    GRADE_WITHOUT_ENV,
    SUPPLIED_SOLUTION,
    SUMMARY_FIGURES,
    REQUIRES_MODEL,
    NEEDS_ENVIRONMENT,
    HARNESS_DESCRIBE,
    ENV_MOUNTS,
    CONTEXT_LIMIT,
    SET_CONCURRENCY_LIMIT,
    SET_ATTEMPT_LIMITS,
    SET_ATTEMPT_COST_LIMIT,
    PRICE_INFO,
    MAX_CONCURRENT,
    PREBUILD,
    WAIT_REMOVED,
    ON_HOST,
    PREPARE,
    READ_HEAD,
    HOST_ADDRESS,
    NET_NAMESPACE,
    OUT_OF_MEMORY,
    END_PROCESSES,
    CALL_RECORDER,
    CONVERSATION,
    CONVERSES,
    MODEL_ROLES,
)
"""Every optional capability, in the order of ``docs/plugins.md``."""
