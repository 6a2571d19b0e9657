"""The optional capabilities: what a component may leave out, with the default the core applies."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from agentcompass.errors import (
    NEVER_VERIFY_AFTER_ERROR,
    ErrorPolicy,
)

if TYPE_CHECKING:
    from .benchmark import AgentResult, AttemptContext, Grade, Solution, Task
    from .environment import Environment, EnvSpec, Mount

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
