"""agentcompass: evaluate LLM agents (a model driven by a harness) on agentic benchmarks in sandboxes.

The public API is re-exported here; the implementation lives in private modules and heavy dependencies
are imported only when used. Importing this package runs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names as type checkers and IDEs see them (at run time they are imported on first use)
    from agentcompass._launch import Orchestration as Orchestration
    from agentcompass._launch import OrchestrationDefaults as OrchestrationDefaults
    from agentcompass._launch import OrchestrationResult as OrchestrationResult
    from agentcompass._launch import OrchestrationSpec as OrchestrationSpec
    from agentcompass._launch import RequestOutcome as RequestOutcome
    from agentcompass._launch import RunRequestSpec as RunRequestSpec
    from agentcompass._orchestrator.record import RunResult as RunResult
    from agentcompass._sdk import EvaluationRequest as EvaluationRequest
    from agentcompass._sdk import LaunchSettings as LaunchSettings
    from agentcompass._sdk import async_launch as async_launch
    from agentcompass._sdk import async_run_evaluation as async_run_evaluation
    from agentcompass._sdk import compare_runs as compare_runs
    from agentcompass._sdk import format_comparison as format_comparison
    from agentcompass._sdk import launch as launch
    from agentcompass._sdk import list_components as list_components
    from agentcompass._sdk import list_tasks as list_tasks
    from agentcompass._sdk import run_evaluation as run_evaluation
    from agentcompass._sdk import scan_run as scan_run
    from agentcompass._sdk.audit import audit as audit
    from agentcompass.errors import AgentCompassError as AgentCompassError
    from agentcompass.errors import AgentError as AgentError
    from agentcompass.errors import ArgumentError as ArgumentError
    from agentcompass.errors import ConfigError as ConfigError
    from agentcompass.errors import DatasetError as DatasetError
    from agentcompass.errors import DependencyError as DependencyError
    from agentcompass.errors import EngineUnavailableError as EngineUnavailableError
    from agentcompass.errors import EvaluationFailedError as EvaluationFailedError
    from agentcompass.errors import ImageError as ImageError
    from agentcompass.errors import ModelEndpointDownError as ModelEndpointDownError
    from agentcompass.errors import ModelError as ModelError
    from agentcompass.errors import NotSupportedYetError as NotSupportedYetError
    from agentcompass.errors import OutOfMemoryError as OutOfMemoryError
    from agentcompass.errors import RunInUseError as RunInUseError
    from agentcompass.errors import RunTimeoutError as RunTimeoutError
    from agentcompass.errors import SandboxError as SandboxError
    from agentcompass.errors import StorageError as StorageError
    from agentcompass.errors import UnknownComponentError as UnknownComponentError
    from agentcompass.errors import VerifierError as VerifierError
    from agentcompass.interfaces import AttemptStatus as AttemptStatus
    from agentcompass.interfaces import ExitStatus as ExitStatus
    from agentcompass.interfaces import RunStatus as RunStatus

__version__ = "0.2.0"

_EXPORTS = {
    "run_evaluation": "agentcompass._sdk",
    "async_run_evaluation": "agentcompass._sdk",
    "launch": "agentcompass._sdk",
    "async_launch": "agentcompass._sdk",
    "EvaluationRequest": "agentcompass._sdk",
    "LaunchSettings": "agentcompass._sdk",
    "compare_runs": "agentcompass._sdk",
    "format_comparison": "agentcompass._sdk",
    "list_components": "agentcompass._sdk",
    "list_tasks": "agentcompass._sdk",
    "audit": "agentcompass._sdk",
    "scan_run": "agentcompass._sdk",
    "OrchestrationSpec": "agentcompass._launch",
    "OrchestrationDefaults": "agentcompass._launch",
    "RunRequestSpec": "agentcompass._launch",
    "OrchestrationResult": "agentcompass._launch",
    "Orchestration": "agentcompass._launch",
    "RequestOutcome": "agentcompass._launch",
    "RunResult": "agentcompass._orchestrator.record",
    "AttemptStatus": "agentcompass.interfaces",
    "RunStatus": "agentcompass.interfaces",
    "ExitStatus": "agentcompass.interfaces",
}
_ERRORS = (
    "AgentCompassError",
    "ConfigError",
    "UnknownComponentError",
    "NotSupportedYetError",
    "DependencyError",
    "DatasetError",
    "SandboxError",
    "ImageError",
    "OutOfMemoryError",
    "EngineUnavailableError",
    "StorageError",
    "ModelError",
    "AgentError",
    "VerifierError",
    "EvaluationFailedError",
    "RunTimeoutError",
    "ArgumentError",
    "RunInUseError",
    "ModelEndpointDownError",
)

__all__ = [*_EXPORTS, *_ERRORS, "__version__"]


def __getattr__(name: str) -> Any:
    import importlib

    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    if name in _ERRORS:
        return getattr(importlib.import_module("agentcompass.errors"), name)
    raise AttributeError(f"module 'agentcompass' has no attribute {name!r}")
