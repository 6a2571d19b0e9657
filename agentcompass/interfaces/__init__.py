"""The plug-in contract: the interfaces (``typing.Protocol``, async), the value types that cross them, the status
enums, and the optional capabilities with their defaults.

Plug-ins import only this module, :mod:`agentcompass.errors` and :mod:`agentcompass.kit`. Every plug-in class is
a :class:`Component`: built as ``cls(config, ctx)`` where ``config`` is an instance of its ``config_class`` (a
pydantic model validated from the composed Hydra config, ``extra="forbid"``) and ``ctx`` is a
:class:`ComponentContext`. What a component may leave out is a :class:`Capability` (:data:`CAPABILITIES`): the
core reads each one through :meth:`Capability.of`, which applies the declared default. The conformance suites in
:mod:`agentcompass.testing.conformance` check an implementation against this contract (``docs/plugins.md``).

The contract is one module to its readers (``from agentcompass.interfaces import ...``); its parts, one file each:
:mod:`.status` (the status enums), :mod:`.component` (what every plug-in is), :mod:`.environment`, :mod:`.model`,
:mod:`.benchmark` (benchmarks, harnesses and the attempt's context) and :mod:`.capabilities`.
"""

from __future__ import annotations

from .benchmark import (
    AgentResult,
    AttemptContext,
    Benchmark,
    FreshGrading,
    GatewayEndpoint,
    Grade,
    GradingWithoutEnvironment,
    Harness,
    ProgressCallback,
    Solution,
    SuppliedSolutions,
    Task,
    error_policy,
)
from .capabilities import (
    CALL_RECORDER,
    CAPABILITIES,
    CONTEXT_LIMIT,
    CONVERSATION,
    CONVERSES,
    END_PROCESSES,
    ENV_MOUNTS,
    ERROR_POLICY,
    GRADE_WITHOUT_ENV,
    GRADING_ENV_SPEC,
    HARNESS_DESCRIBE,
    HOST_ADDRESS,
    MAX_CONCURRENT,
    MODEL_ROLES,
    NEEDS_ENVIRONMENT,
    NET_NAMESPACE,
    ON_HOST,
    OUT_OF_MEMORY,
    PREBUILD,
    PREPARE,
    PRICE_INFO,
    READ_HEAD,
    REQUIRES_MODEL,
    RESUMABLE_FROM_SUBMISSION,
    SET_ATTEMPT_COST_LIMIT,
    SET_ATTEMPT_LIMITS,
    SET_CONCURRENCY_LIMIT,
    SUMMARY_FIGURES,
    SUPPLIED_SOLUTION,
    WAIT_REMOVED,
    Capability,
)
from .component import Component, ComponentContext
from .environment import Environment, EnvironmentProvider, EnvSpec, ExecResult, Mount
from .model import ChatFunctionCall, ChatToolCall, ModelClient, ModelResponse, ToolCall, Usage, add_cost, sum_cost
from .status import AttemptStatus, ExitStatus, RunStatus

__all__ = [
    "AgentResult",
    "AttemptContext",
    "AttemptStatus",
    "Benchmark",
    "CALL_RECORDER",
    "CAPABILITIES",
    "CONTEXT_LIMIT",
    "CONVERSATION",
    "CONVERSES",
    "Capability",
    "ChatFunctionCall",
    "ChatToolCall",
    "Component",
    "ComponentContext",
    "END_PROCESSES",
    "ENV_MOUNTS",
    "ERROR_POLICY",
    "EnvSpec",
    "Environment",
    "EnvironmentProvider",
    "ExecResult",
    "ExitStatus",
    "FreshGrading",
    "GRADE_WITHOUT_ENV",
    "GRADING_ENV_SPEC",
    "GatewayEndpoint",
    "Grade",
    "GradingWithoutEnvironment",
    "HARNESS_DESCRIBE",
    "HOST_ADDRESS",
    "Harness",
    "MAX_CONCURRENT",
    "MODEL_ROLES",
    "ModelClient",
    "ModelResponse",
    "Mount",
    "NEEDS_ENVIRONMENT",
    "NET_NAMESPACE",
    "ON_HOST",
    "OUT_OF_MEMORY",
    "PREBUILD",
    "PREPARE",
    "PRICE_INFO",
    "ProgressCallback",
    "READ_HEAD",
    "REQUIRES_MODEL",
    "RESUMABLE_FROM_SUBMISSION",
    "RunStatus",
    "SET_ATTEMPT_COST_LIMIT",
    "SET_ATTEMPT_LIMITS",
    "SET_CONCURRENCY_LIMIT",
    "SUMMARY_FIGURES",
    "SUPPLIED_SOLUTION",
    "Solution",
    "SuppliedSolutions",
    "Task",
    "ToolCall",
    "Usage",
    "WAIT_REMOVED",
    "add_cost",
    "error_policy",
    "sum_cost",
]
