"""Attempts on a Ray cluster (``execution.executor: ray``); see docs/scale.md.

The driver (this process) keeps the pool, retries, limits, progress, metrics and the run directory
(:mod:`.executor`); each attempt runs as a Ray task on a worker node (:mod:`.worker`, :mod:`.parts`); a services
actor on the driver's node holds the cluster-wide limits (:mod:`.services`); :mod:`.nodes` does per-node work
(cleanup, image prebuilds). Ray itself is imported only when this executor is used (``agentcompass[ray]``).
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "RayExecutor":
        from .executor import RayExecutor

        return RayExecutor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
