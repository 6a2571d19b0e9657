"""Several named requests as one Hydra multirun sharing one attempt pool: the spec types, their resolution into
an :class:`Orchestration`, and its execution. The entry points ``launch`` / ``async_launch`` live in
:mod:`agentcompass._sdk`."""

from __future__ import annotations

from .resolve import apply_runtime, load_spec_file, resolve_orchestration
from .run import Orchestration, OrchestrationResult, RequestOutcome, run_orchestration
from .spec import OrchestrationDefaults, OrchestrationSpec, RunRequestSpec

__all__ = [
    "OrchestrationSpec",
    "OrchestrationDefaults",
    "RunRequestSpec",
    "OrchestrationResult",
    "RequestOutcome",
    "Orchestration",
    "load_spec_file",
    "resolve_orchestration",
    "apply_runtime",
    "run_orchestration",
]
