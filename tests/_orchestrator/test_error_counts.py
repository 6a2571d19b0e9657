"""``metrics.ErrorCounts`` (the running run.json's counts, kept as rows come) agrees with ``compute_metrics`` over
the same rows, rows replaced included (a reused run's kept rows, then new final rows for some of them)."""

from __future__ import annotations

import random

from agentcompass._orchestrator.metrics.metrics import ErrorCounts, compute_metrics
from agentcompass.errors import ERROR_CLASSES


def _row(rng: random.Random, task: int) -> dict:
    status = rng.choice(["completed", "error", "error", "cancelled"])
    return {
        "task_id": f"t{task}",
        "sample": 1,
        "status": status,
        "reward": 1.0 if status == "completed" else None,
        "error_class": None if status == "completed" else rng.choice([*ERROR_CLASSES, None]),
        "attempts": 1,
        "duration_s": 0.1,
        "tokens": {},
        "cost_usd": 0.0,
    }


def test_error_counts_agree_with_compute_metrics():
    rng = random.Random(7)
    rows: dict[tuple[str, int], dict] = {}
    counts = ErrorCounts()
    for _ in range(500):
        task = rng.randrange(120)  # some keys are set again: the row is replaced
        row = _row(rng, task)
        counts.replace(rows.get((row["task_id"], 1)), row)
        rows[(row["task_id"], 1)] = row
        full = compute_metrics(rows.values())
        assert counts.metrics() == {"n_errors": full["n_errors"], "errors_by_class": full["errors_by_class"]}
