"""agentcompass: evaluate LLM agents (a model driven by a harness) on agentic benchmarks in sandboxes.

The public API is re-exported here; the implementation lives in private modules and heavy dependencies
are imported only when used. Importing this package runs nothing.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.2.0"

_EXPORTS = {
    "run_evaluation": "agentcompass._sdk",
    "async_run_evaluation": "agentcompass._sdk",
    "launch": "agentcompass._sdk",
    "async_launch": "agentcompass._sdk",
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
    "RunResult": "agentcompass._orchestrator.result",
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
