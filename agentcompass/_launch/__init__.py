"""Several named requests as one Hydra multirun sharing one attempt pool: the spec types, their resolution into
an :class:`Orchestration`, and its execution. The entry points ``launch`` / ``async_launch`` live in
:mod:`agentcompass._sdk`.

Names are imported when first used (a single request needs :mod:`.run` only, not the spec models)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # explicit re-exports, for the type checker
    from .resolve import apply_runtime as apply_runtime
    from .resolve import load_spec_file as load_spec_file
    from .resolve import resolve_orchestration as resolve_orchestration
    from .run import Orchestration as Orchestration
    from .run import OrchestrationResult as OrchestrationResult
    from .run import RequestOutcome as RequestOutcome
    from .run import orchestration_runtime as orchestration_runtime
    from .run import run_orchestration as run_orchestration
    from .spec import OrchestrationDefaults as OrchestrationDefaults
    from .spec import OrchestrationSpec as OrchestrationSpec
    from .spec import RunRequestSpec as RunRequestSpec

_EXPORTS = {
    "OrchestrationSpec": "spec",
    "OrchestrationDefaults": "spec",
    "RunRequestSpec": "spec",
    "OrchestrationResult": "run",
    "RequestOutcome": "run",
    "Orchestration": "run",
    "run_orchestration": "run",
    "orchestration_runtime": "run",
    "load_spec_file": "resolve",
    "resolve_orchestration": "resolve",
    "apply_runtime": "resolve",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
