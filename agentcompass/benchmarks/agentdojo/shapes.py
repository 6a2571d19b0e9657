"""The shapes of AgentDojo data this package reads: the fields of a run's results rows its figures use."""

from __future__ import annotations

from typing import TypedDict


class ResultRow(TypedDict, total=False):
    """The fields of a run's results row that AgentDojo's figures read (the orchestrator writes more)."""

    task_id: str
    status: str
    reward: float | None
    rewards: dict[str, float] | None
