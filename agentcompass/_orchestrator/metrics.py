"""Per-sample rows and the run metrics (names fixed by the contract).

A row is one (task, sample): the final attempt of that sample after its retries. Every metric is computed from
samples; retries only add to ``n_attempts`` / ``n_retries`` and are never samples.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from agentcompass.errors import ERROR_CLASSES
from agentcompass.interfaces import AttemptStatus

from .costs import row_costs, run_costs
from .outcome import AttemptOutcome


def task_row(final: AttemptOutcome, attempts: list[AttemptOutcome], sample: int = 1) -> dict[str, Any]:
    """One sample's final outcome: the results.jsonl line (and the sample entry of its summary task row)."""
    usage = final.usage or {}
    agent = final.agent or {}
    return {
        "task_id": final.task_id,
        "sample": sample,
        "status": final.status,
        "reward": final.reward,
        "rewards": final.rewards,
        "resolved": final.resolved,
        "attempts": len(attempts),
        "error": {"type": final.error_type, "message": final.error} if final.error else None,
        "error_class": final.error_class,
        "duration_s": final.duration_s,  # the attempt itself, from the moment it held its slot
        "queue_s": final.queue_s,  # its wait for the slot (not in duration_s nor its percentiles)
        "tokens": {k: usage.get(k, 0) for k in ("input", "output", "cached")},
        **row_costs(attempts),
        "exit_status": agent.get("exit_status"),
        "limit_hit": agent.get("limit_hit"),
        "n_turns": agent.get("n_turns", 0),
        "reward_valid": final.reward_valid,
        "attempt_outcomes": [[a.status, a.reward if a.reward_valid else None] for a in attempts],
        "attempt_dir": final.attempt_dir,
    }


def percentile(values: list[float], q: float, digits: int = 4) -> float:
    """Linear-interpolation percentile (``q`` in 0..1); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return round(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo), digits)


def reward_counts(row: dict[str, Any]) -> bool:
    """A sample's reward counts when it finished without an error, or its error's policy counts the reward
    (verified after an agent-phase error); rows of older runs carry no ``reward_valid``."""
    return row["reward"] is not None and bool(row.get("reward_valid", row["status"] == AttemptStatus.COMPLETED))


def scored(row: dict[str, Any]) -> float:
    """A sample's score: its reward when it counts, else 0 (an error counts 0)."""
    return float(row["reward"]) if reward_counts(row) else 0.0


def passed(row: dict[str, Any]) -> bool:
    """A sample passes with a counted reward >= 1 (partial credit does not pass)."""
    return reward_counts(row) and row["reward"] >= 1


def by_task(rows: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Rows grouped by task (sorted by id), each task's samples in sample order."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[str(row["task_id"])].append(row)
    return {t: sorted(groups[t], key=lambda r: r.get("sample") or 1) for t in sorted(groups)}


def pass_at_k_of(n: int, c: int, k: int) -> float:
    """The unbiased estimator of pass@k for one task with ``c`` passing samples out of ``n``:
    ``1 - C(n - c, k) / C(n, k)`` (Chen et al., 2021)."""
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_at_k(groups: dict[str, list[dict[str, Any]]]) -> dict[str, float]:
    """Mean over tasks of the per-task estimator, for every k up to the most samples a task has; a task with
    fewer than k samples (a run cut short) is left out of pass@k. Empty with one sample per task."""
    counts = [(len(s), sum(passed(r) for r in s)) for s in groups.values()]
    max_n = max((n for n, _ in counts), default=0)
    if max_n < 2:
        return {}
    out: dict[str, float] = {}
    for k in range(1, max_n + 1):
        vals = [pass_at_k_of(n, c, k) for n, c in counts if n >= k]
        out[str(k)] = round(sum(vals) / len(vals), 6) if vals else 0.0
    return out


def stderr_over_tasks(means: list[float]) -> float | None:
    """Standard error of the mean reward, clustered by task: the sample standard deviation of the per-task
    mean rewards over sqrt(number of tasks). None for fewer than two tasks."""
    n = len(means)
    if n < 2:
        return None
    mu = sum(means) / n
    var = sum((m - mu) ** 2 for m in means) / (n - 1)
    return round(math.sqrt(var / n), 6)


def compute_metrics(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    rows = list(rows)
    groups = by_task(rows)
    n_samples = len(rows)
    completed = [r for r in rows if r["status"] == AttemptStatus.COMPLETED]
    errors = [r for r in rows if r["status"] != AttemptStatus.COMPLETED]
    valid = [r["reward"] for r in rows if reward_counts(r)]
    by_class = Counter(r.get("error_class") or "agent" for r in errors)
    n_attempts = sum(r["attempts"] for r in rows)
    resolved_known = [r for r in rows if r.get("resolved") is not None]
    durations = [r["duration_s"] for r in rows]
    tokens = {k: sum(r["tokens"].get(k, 0) for r in rows) for k in ("input", "output", "cached")}
    task_means = [sum(scored(r) for r in s) / len(s) for s in groups.values()]
    metrics: dict[str, Any] = {
        "n_tasks": len(groups),
        "n_samples": n_samples,
        "samples_per_task": max((len(s) for s in groups.values()), default=0),
        "n_attempts": n_attempts,
        "n_completed": len(completed),
        "n_errors": len(errors),
        "errors_by_class": {c: by_class.get(c, 0) for c in ERROR_CLASSES},
        "n_retries": n_attempts - n_samples,
        "mean_reward": round(sum(valid) / n_samples, 6) if n_samples else 0.0,
        "mean_reward_denominator": n_samples,
        "mean_reward_stderr": stderr_over_tasks(task_means),
        "mean_reward_valid": round(sum(valid) / len(valid), 6) if valid else None,
        "n_valid_rewards": len(valid),
        "pass_rate": round(sum(1 for v in valid if v >= 1) / n_samples, 6) if n_samples else 0.0,
        "tokens": tokens,
        **run_costs(rows),
        "duration_s": {
            "p50": percentile(durations, 0.5),
            "p90": percentile(durations, 0.9),
            "max": round(max(durations), 4) if durations else 0.0,
        },
    }
    at_k = pass_at_k(groups)
    if at_k:
        metrics["pass_at_k"] = at_k
    if resolved_known:
        metrics["resolved"] = sum(1 for r in rows if r.get("resolved"))
        metrics["resolved_rate"] = round(metrics["resolved"] / n_samples, 6) if n_samples else 0.0
    return metrics
