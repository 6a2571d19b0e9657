"""The figures of an analysed run with their 95 % intervals, and with repeated samples the spread of each task's
pass rate: which tasks are stable (always or never solved) and which are coin flips."""

from __future__ import annotations

from typing import cast

from agentcompass._orchestrator.metrics import compute_metrics
from agentcompass._orchestrator.record import ResultRow
from agentcompass._stats.intervals import wilson
from agentcompass.interfaces import AttemptStatus

from .collect import TaskRecord
from .shapes import Figures, TaskSpread, TaskSpreadRow

FIGURES = ("mean_reward", "mean_reward_valid", "pass_rate", "resolved_rate", "pass_at_k", "pass_hat_k")
SHOWN = 20


def _row(rec: TaskRecord) -> ResultRow:
    row = rec.row.copy()
    row.setdefault("sample", rec.sample)
    row["status"] = row.get("status") or AttemptStatus.ERROR
    row["attempts"] = int(row.get("attempts") or 1)
    row["duration_s"] = float(row.get("duration_s") or 0.0)
    tokens = row.get("tokens")
    row["tokens"] = tokens if isinstance(tokens, dict) else {"input": 0, "output": 0, "cached": 0}  # as none
    return row


def figures(records: list[TaskRecord]) -> Figures:
    """Each headline figure of the run and its interval (``<figure>_ci``), as the run's summary computes them."""
    m = compute_metrics([_row(rec) for rec in records])
    shown = {k: v for k, v in m.items() if k in FIGURES or (k.endswith("_ci") and k[:-3] in FIGURES)}
    return cast(Figures, shown)  # the part of the run's metrics (RunMetrics) Figures names


def task_spread(records: list[TaskRecord]) -> TaskSpread | None:
    """With several samples per task: per task its passes out of its samples, the pass rate with a Wilson interval
    over the samples, and its class (``always``, ``never``, ``sometimes``); the ``sometimes`` tasks are listed
    closest to a coin flip first, and the share of the reward variance that is between tasks (the rest is
    sample-to-sample noise, which more samples average out). None with one sample per task."""
    from agentcompass._orchestrator.metrics import by_task, passed, scored

    groups = by_task(_row(rec) for rec in records)
    if max((len(s) for s in groups.values()), default=0) < 2:
        return None
    tasks: list[TaskSpreadRow] = []
    for tid, samples in groups.items():
        n, c = len(samples), sum(passed(r) for r in samples)
        low, high = wilson(c, n)
        scores = [scored(r) for r in samples]
        mean = sum(scores) / n
        var = sum((s - mean) ** 2 for s in scores) / (n - 1) if n > 1 else 0.0
        kind = "always" if c == n else "never" if c == 0 else "sometimes"
        tasks.append({"task_id": tid, "n": n, "passed": c, "pass_rate": c / n, "ci": [low, high],
                      "mean_reward": mean, "var": var, "class": kind})  # fmt: skip
    means = [t["mean_reward"] for t in tasks]
    grand = sum(means) / len(means)
    between = sum((m - grand) ** 2 for m in means) / max(1, len(means) - 1)
    within = sum(t["var"] for t in tasks) / len(tasks)
    k = sum(t["n"] for t in tasks) / len(tasks)
    true_between = max(0.0, between - within / k)
    counts = {c: sum(1 for t in tasks if t["class"] == c) for c in ("always", "never", "sometimes")}
    flips = sorted(
        (t for t in tasks if t["class"] == "sometimes"), key=lambda t: (abs(t["pass_rate"] - 0.5), t["task_id"])
    )
    return {
        "samples_per_task": k,
        "counts": counts,
        "between_task_share": true_between / (true_between + within) if true_between + within > 0 else None,
        "coin_flips": [t["task_id"] for t in flips],
        "tasks": tasks,
    }
