"""The ATIF trajectory the installed agents' harnesses write (and the viewer and ``export harbor`` read), for the
harnesses of other agent programs (the shell harness of :mod:`agentcompass.testing`): the harnesses' front door to
it, whose own package (``_installed``) stays private."""

from __future__ import annotations

from ._installed.atif import (
    AtifAgent,
    AtifFinalMetrics,
    AtifMetrics,
    AtifObservation,
    AtifResult,
    AtifStep,
    AtifToolCall,
    AtifTrajectory,
    Builder,
)

__all__ = [
    "AtifAgent",
    "AtifFinalMetrics",
    "AtifMetrics",
    "AtifObservation",
    "AtifResult",
    "AtifStep",
    "AtifToolCall",
    "AtifTrajectory",
    "Builder",
]
