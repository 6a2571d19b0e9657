"""The one exception hierarchy of agentcompass.

::

    AgentCompassError                      root; ``retryable`` and ``error_class`` are read by the orchestrator
    ├── ConfigError                        bad configuration or argument (CLI exit 2)
    │   ├── UnknownComponentError          an id with no file in ``conf/<group>/``; lists the valid ids
    │   ├── NotSupportedYetError           accepted parameter whose feature is not built (also NotImplementedError)
    │   ├── ArgumentError(TypeError)       an SDK keyword of the wrong type (or unknown, in a dict of keywords)
    │   ├── RunInUseError                  the run directory is held by another live process (names it)
    │   └── GatewayUnavailableError        a gateway endpoint asked for where there is none (no model)
    ├── DependencyError                    a missing optional extra or tool; names the install command
    ├── DatasetError                       a dataset file or task directory that cannot be read
    ├── StorageError(OSError)              the disk holding the run or data_dir is full: the request stops
    ├── RecordWriteError                   the run's record could not be written otherwise: the request stops
    ├── SandboxError                       environment failures (infra)
    │   ├── ImageError                     an image that can be neither pulled nor built
    │   ├── PathEscapeError                a path or archive member leaving its root
    │   ├── OutOfMemoryError               the kernel killed a process at the environment's memory limit
    │   ├── EngineUnavailableError         the engine behind the environment (a Docker daemon) does not answer
    │   ├── NodeLostError                  the cluster node (or worker process) running an attempt died
    │   └── GatewayUnreachableError        the model gateway cannot be reached from an environment
    ├── ModelError                         a model endpoint failure (model)
    │   ├── ModelRetryableError            429 / 5xx / connection / timeout (retried by the model layer)
    │   ├── ModelEndpointDownError         every call to an endpoint failed to connect: the request stops
    │   ├── TranslationError               a gateway request that cannot be put in the endpoint's protocol
    │   └── ReplayMismatchError            --replay: a call differs from the recorded one (names it and the field)
    ├── AttemptLimitReached                a per-attempt limit of model calls / tokens reached (a limit: verified)
    │   └── AttemptCostLimitReached        the attempt's calls reached attempt_cost_limit_usd
    ├── AgentError                         the harness crashed (agent)
    ├── VerifierError                      grading could not produce a valid reward (verifier)
    ├── EvaluationFailedError              a run finished, but attempts ended in errors / the run failed
    ├── RunTimeoutError(TimeoutError)      ``timeout_seconds`` expired (CLI exit 124)
    └── BudgetExhaustedError               cost_limit_usd / token_limit reached: run ``stopped_budget`` (exit 3)

Harness-internal control flow (submitted, limits exceeded, format errors) never leaves a harness.

The verify-after-error policies (:data:`NEVER_VERIFY_AFTER_ERROR`, :data:`HARBOR_ERROR_POLICY`) say, per error
class (or error type) and phase, whether an attempt that failed is still verified and whether the reward the
verifier writes counts; a benchmark picks one (``interfaces.error_policy``).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

ErrorClass = Literal["infra", "model", "agent", "verifier", "config"]
ERROR_CLASSES: tuple[ErrorClass, ...] = ("infra", "model", "agent", "verifier", "config")


class AgentCompassError(Exception):
    """Root of every agentcompass error."""

    error_class: ErrorClass = "agent"
    retryable: bool = False
    stops_request: bool = False  # raised in an attempt, it ends the whole request (no further attempts)

    def __init__(self, message: str = "", *, retryable: bool | None = None) -> None:
        super().__init__(message)
        if retryable is not None:
            self.retryable = retryable


class ConfigError(AgentCompassError):
    """A configuration value, CLI argument or input file is invalid. Nothing ran.

    The message is one line: the first problem, and how many more there are. ``details`` holds every problem,
    one line each (the CLI prints them with ``--log-level DEBUG``)."""

    error_class: ErrorClass = "config"

    def __init__(self, message: str = "", *, retryable: bool | None = None, details: list[str] | None = None) -> None:
        super().__init__(message, retryable=retryable)
        self.details: list[str] = list(details or [])


class UnknownComponentError(ConfigError):
    """A component id that has no file in ``conf/<group>/``."""

    def __init__(self, group: str, value: str, valid: list[str]) -> None:
        import difflib

        self.group, self.value, self.valid = group, value, valid
        close = difflib.get_close_matches(str(value), valid, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        super().__init__(f"unknown {group} {value!r}{hint}; valid ids: {', '.join(valid) or '(none)'}")


class NotSupportedYetError(ConfigError, NotImplementedError):
    """A parameter that is accepted by the interface but whose feature is not built yet."""


class ArgumentError(ConfigError, TypeError):
    """An SDK keyword with a value of the wrong type, or an unknown keyword in a dict of keywords (also a
    TypeError, which is what Python raises for a bad call; a call with a misspelt keyword gets Python's own)."""


class RunInUseError(ConfigError):
    """The run directory is locked by another live process (a second ``reuse`` of a running run)."""


class GatewayUnavailableError(ConfigError):
    """A harness asked for a model gateway endpoint (``ctx.gateway(env)``) where there is none: the request has
    no model (``model=none``), or the attempt runs where no gateway can be started."""


class ModelRoleUnavailableError(ConfigError):
    """A benchmark or harness asked for a model role (``ctx.model_role(name)``, e.g. ``user`` or ``judge``) that the
    request does not configure and the benchmark gives no default for (``model_roles``)."""


class DependencyError(ConfigError):
    """A missing optional Python extra or a tool missing inside an environment."""


class DatasetError(ConfigError):
    """A dataset file or task directory that cannot be read; names the path and the field."""


class StorageError(AgentCompassError, OSError):
    """A file of the run (under ``results_dir``) or of ``data_dir`` could not be written because its disk is
    full (``ENOSPC``) or a quota is reached (``EDQUOT``). The request stops at once (no attempt could be
    recorded); every file already written stays whole, and ``--reuse`` once space is freed runs the rest.
    Also an OSError (with ``errno`` and ``filename``), so code catching OSError still does."""

    error_class: ErrorClass = "infra"
    stops_request = True

    def __init__(self, path: str | os.PathLike[str], errno_: int = errno.ENOSPC, what: str = "cannot write") -> None:
        self.path = str(path)
        AgentCompassError.__init__(self, f"{what} {self.path}: {os.strerror(errno_)}")
        self.errno, self.strerror, self.filename = errno_, os.strerror(errno_), self.path

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


FULL_DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def storage_error(exc: BaseException, path: str | os.PathLike[str] | None = None) -> StorageError | None:
    """The StorageError that ``exc`` is (an OSError of a full disk or quota), naming ``path`` (else the
    error's own file name); None for any other error."""
    if isinstance(exc, StorageError):
        return exc
    if not isinstance(exc, OSError) or exc.errno not in FULL_DISK_ERRNOS:
        return None
    return StorageError(path or exc.filename or "a file", exc.errno)


class RecordWriteError(AgentCompassError):
    """A file of the run's record (an attempt's directory, ``result.json`` or ``checkpoint.json``, a
    ``results.jsonl`` line) could not be written for another reason than a full disk (that is a StorageError): a
    read-only or vanished directory, a path taken by something else. ``stops_request``: no attempt starts after
    it (its work could not be kept), and the request fails with this error's one line, which names the file."""

    error_class: ErrorClass = "infra"
    stops_request = True


class SandboxError(AgentCompassError):
    """The environment failed (not the agent): open, exec transport, upload, close."""

    error_class: ErrorClass = "infra"
    retryable = True


class ImageError(SandboxError):
    """An image that can be neither pulled nor built. Not retried: it would fail again."""

    retryable = False


class OutOfMemoryError(SandboxError):
    """The kernel's OOM killer ended a process of the environment at its memory limit, and the attempt failed (or
    scored below full) after it. Class ``infra`` as every environment failure, but not retried by default: the
    task would run out of memory again (``retry_pattern_list: ["OutOfMemoryError"]`` retries it)."""

    retryable = False


class EngineUnavailableError(SandboxError):
    """The engine that runs the environments (the Docker daemon) does not answer: stopped, restarting, its socket
    gone. Names the engine. Retryable: a retry waits (a bounded time) for the engine to answer again."""


class PathEscapeError(SandboxError):
    """A path or archive member that would leave its root directory."""

    retryable = False


class NodeLostError(SandboxError):
    """The node or worker process running an attempt (``executor: ray``) died or became unreachable: infra,
    retryable, so the attempt is retried on a node that is alive under the usual retry rules."""


class GatewayUnreachableError(SandboxError):
    """The model gateway cannot be reached from inside an environment (it has no network, or no way to name this
    host). Not retried: another attempt would meet the same environment."""

    retryable = False


class ModelError(AgentCompassError):
    """A model endpoint error that ends the attempt (400, 401, 403, 404, context length...)."""

    error_class: ErrorClass = "model"

    def __init__(
        self, message: str, *, endpoint: str = "", status: int | None = None, retryable: bool | None = None
    ) -> None:
        self.endpoint, self.status = endpoint, status
        super().__init__(message, retryable=retryable)


class ModelRetryableError(ModelError):
    """429, 408, 5xx, dropped connections and timeouts: retried with backoff by the model layer."""

    retryable = True


class TranslationError(ModelError):
    """An agent's request to the model gateway that cannot be put into the endpoint's protocol (a field, content
    part or tool with no counterpart); names it. The agent gets a 400 in its own API's shape."""

    def __init__(self, message: str) -> None:
        super().__init__(message, status=400, retryable=False)


class ModelEndpointDownError(ModelError):
    """The model client's circuit is open: its first calls to an endpoint all failed to connect (refused, DNS,
    unreachable) and none ever succeeded. ``stops_request``: the orchestrator starts no more attempts of the
    request and fails it with this error's one line."""

    stops_request = True


class ContextLengthExceededError(ModelError):
    """The prompt does not fit the model's context window."""


class ReplayMismatchError(ModelError):
    """``--replay``: the attempt made a call that the recorded run did not make (another request, or more calls
    than were recorded). The message names the call (``request 3``) and the first field that differs. It is the
    harness's or the prompt's change, not the endpoint's: class ``agent``, never retried."""

    error_class: ErrorClass = "agent"


class AttemptLimitReached(AgentCompassError):
    """The attempt's model calls reached a per-attempt limit (``execution.attempt_max_model_calls``,
    ``attempt_max_tokens_total``, ``attempt_cost_limit_usd``): the call is refused. A limit, not an error: the
    agent phase ends with ``limit_hit`` = :attr:`limit` and the attempt is verified as usual."""

    def __init__(self, message: str, limit: str) -> None:
        super().__init__(message, retryable=False)
        self.limit = limit


class AttemptCostLimitReached(AttemptLimitReached):
    """The attempt's model calls reached ``execution.attempt_cost_limit_usd`` (``limit_hit: cost_limit``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "cost_limit")


class AgentError(AgentCompassError):
    """The harness failed in a way that is not the model's or the environment's fault. ``result``: what the agent
    phase produced all the same (an AgentResult: its trajectory, usage, info), kept when the failure turns out to
    follow a per-attempt limit (an agent program exiting non-zero after the gateway refused its call)."""

    error_class: ErrorClass = "agent"

    def __init__(self, message: str = "", *, retryable: bool | None = None, result: Any = None) -> None:
        super().__init__(message, retryable=retryable)
        self.result = result


class VerifierError(AgentCompassError):
    """The verifier ran but produced no valid reward (missing, empty, non-numeric, NaN, timeout)."""

    error_class: ErrorClass = "verifier"


class EvaluationFailedError(AgentCompassError):
    """The run finished but failed as a whole; partial results are on disk at ``run_dir``."""

    def __init__(self, message: str, *, result: Any = None) -> None:
        self.result = result
        super().__init__(message)


class RunTimeoutError(AgentCompassError, TimeoutError):
    """``timeout_seconds`` expired; finished results stay on disk."""

    error_class: ErrorClass = "infra"

    def __init__(self, message: str, *, result: Any = None) -> None:
        self.result = result
        super().__init__(message)


class BudgetExhaustedError(AgentCompassError):
    """The request's ``cost_limit_usd`` or ``token_limit`` was reached: no attempt started after it, the run
    ended ``stopped_budget`` (CLI exit 3); ``result`` holds the result, ``--reuse`` with a larger budget
    continues the run."""

    def __init__(self, message: str, *, result: Any = None) -> None:
        self.result = result
        super().__init__(message)


def classify(exc: BaseException) -> ErrorClass:
    """The error class of any exception: typed errors carry theirs, anything else is the agent's."""
    if isinstance(exc, AgentCompassError):
        return exc.error_class
    if isinstance(exc, (TimeoutError, OSError)):
        return "infra"
    return "agent"


def one_line(exc: BaseException) -> str:
    """``"<ErrorType>: <first line of message>"``, the string retry patterns are matched against."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ").rstrip()


# --------------------------------------------------------------------------- verify-after-error policy

Phase = Literal["setup", "agent", "verify"]
"""setup: environment open, benchmark setup, hooks before the agent; agent: the harness; verify: after the agent."""
PHASES: tuple[Phase, ...] = ("setup", "agent", "verify")


@dataclass(frozen=True)
class AfterError:
    """What follows an error: run the verifier anyway (``verify``), and whether its reward counts."""

    verify: bool = False
    reward_counts: bool = False


NOT_VERIFIED = AfterError()
VERIFIED_COUNTED = AfterError(verify=True, reward_counts=True)
VERIFIED_NOT_COUNTED = AfterError(verify=True, reward_counts=False)

ErrorPolicy = Mapping[tuple[str, Phase], AfterError]
"""(error class or error type name, phase) -> AfterError; a missing key means NOT_VERIFIED."""

NEVER_VERIFY_AFTER_ERROR: ErrorPolicy = MappingProxyType({})
"""The default: an error ends the attempt; nothing is verified after it."""

HARBOR_ERROR_POLICY: ErrorPolicy = MappingProxyType(
    {
        # Harbor 0.26's default trial policy (harbor.models.trial.error_policy), by our error classes. Errors
        # before the agent ran are never verified (setup: no entry). In the agent phase:
        ("agent", "agent"): VERIFIED_COUNTED,  # a crashed or failed agent (Harbor: unknown errors, non-zero exit)
        ("ContextLengthExceededError", "agent"): VERIFIED_COUNTED,  # Harbor: ContextLengthExceededError
        ("model", "agent"): VERIFIED_NOT_COUNTED,  # Harbor: API errors (rate limits, bad requests, 5xx)
        ("infra", "agent"): NOT_VERIFIED,  # Harbor: sandbox errors (health check, out of memory)
        ("config", "agent"): NOT_VERIFIED,  # Harbor: missing extras, unsupported operations
    }
)
"""Harbor's defaults, used by the Terminal-Bench benchmarks."""


def after_error(policy: ErrorPolicy, exc: BaseException, phase: Phase) -> AfterError:
    """The policy's entry for ``exc`` in ``phase``: its type (or a base type) by name first, then its class."""
    for cls in type(exc).__mro__:
        entry = policy.get((cls.__name__, phase))
        if entry is not None:
            return entry
    return policy.get((classify(exc), phase), NOT_VERIFIED)
