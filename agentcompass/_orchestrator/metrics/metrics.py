"""Per-sample rows and the run metrics (names fixed by the contract).

A row is one (task, sample): the final attempt of that sample after its retries. Every metric is computed from
samples; retries only add to ``n_tries`` / ``n_retries`` and are never samples. Every headline figure (mean
reward, pass rate, resolved rate, pass@k, pass^k) comes with its 95 % interval over tasks, ``<figure>_ci``
(``agentcompass._stats.intervals``: Wilson for binary per-task outcomes, else task-clustered t; the method is named
in the interval).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from typing_extensions import TypedDict

from agentcompass._stats.intervals import mean_interval, ratio_interval, rounded
from agentcompass.errors import ERROR_CLASSES
from agentcompass.interfaces import AttemptStatus

from ..record import AttemptOutcome, ErrorsByClass, IntegrityVerdicts, Interval, ResultRow, RunMetrics, UsageRecord
from .costs import row_costs, run_costs, sum_role_usage

Groups = dict[str, list[ResultRow]]  # rows by task id, each task's in sample order


class ErrorCounted(TypedDict):
    n_errors: int
    errors_by_class: ErrorsByClass


class IntegrityMetrics(TypedDict, total=False):
    integrity_flagged: int
    integrity_verdicts: IntegrityVerdicts
    resolved_rate_clean: float
    resolved_rate_clean_ci: Interval


def task_row(final: AttemptOutcome, attempts: list[AttemptOutcome], sample: int = 1) -> ResultRow:
    """One sample's final outcome: the results.jsonl line (and the sample entry of its summary task row)."""
    usage = final.usage or {}
    agent = final.agent or {}
    row: ResultRow = {  # type: ignore[typeddict-item]  # usage_by_role only when a role was used
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
        "tokens": {"input": usage.get("input", 0), "output": usage.get("output", 0), "cached": usage.get("cached", 0)},
        **row_costs(attempts),
        **({"usage_by_role": final.usage_by_role} if final.usage_by_role else {}),
        "exit_status": agent.get("exit_status"),
        "limit_hit": agent.get("limit_hit"),
        "n_turns": agent.get("n_turns", 0),
        "reward_valid": final.reward_valid,
        "attempt_outcomes": [[a.status, a.reward if a.reward_valid else None] for a in attempts],  # type: ignore[misc]
        "attempt_dir": final.attempt_dir,
    }
    return row


def _role_usage(rows: list[ResultRow]) -> dict[str, dict[str, UsageRecord]]:
    """``usage_by_role``: the model roles' tokens, calls and cost over the samples' final attempts (absent when no
    role was used)."""
    roles = sum_role_usage(rows)
    return {"usage_by_role": roles} if roles else {}


def percentile(values: list[float], q: float, digits: int = 4) -> float:
    """Linear-interpolation percentile (``q`` in 0..1); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return round(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo), digits)


def reward_counts(row: ResultRow) -> bool:
    """A sample's reward counts when it finished without an error, or its error's policy counts the reward
    (verified after an agent-phase error); rows of older runs carry no ``reward_valid``."""
    return row["reward"] is not None and bool(row.get("reward_valid", row["status"] == AttemptStatus.COMPLETED))


def scored(row: ResultRow) -> float:
    """A sample's score: its reward when it counts, else 0 (an error counts 0)."""
    return float(row["reward"]) if reward_counts(row) else 0.0


def passed(row: ResultRow) -> bool:
    """A sample passes with a counted reward >= 1 (partial credit does not pass)."""
    return reward_counts(row) and row["reward"] >= 1


def by_task(rows: Iterable[ResultRow]) -> Groups:
    """Rows grouped by task (sorted by id), each task's samples in sample order."""
    groups: Groups = defaultdict(list)
    for row in rows:
        groups[str(row["task_id"])].append(row)
    return {t: sorted(groups[t], key=lambda r: r.get("sample") or 1) for t in sorted(groups)}


def pass_at_k_of(n: int, c: int, k: int) -> float:
    """The unbiased estimator of pass@k for one task with ``c`` passing samples out of ``n``:
    ``1 - C(n - c, k) / C(n, k)`` (Chen et al., 2021)."""
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k_of(n: int, c: int, k: int) -> float:
    """The unbiased estimator of pass^k (all of k samples pass) for one task with ``c`` passing samples out of
    ``n``: ``C(c, k) / C(n, k)``."""
    return math.comb(c, k) / math.comb(n, k)


def _per_task(groups: Groups) -> list[tuple[int, int, float, float, int, int]]:
    """Per task, in one pass over its samples: (samples, passes, score sum, valid reward sum, valid rewards,
    resolved)."""
    out = []
    for samples in groups.values():
        c = score = valid_sum = 0.0
        n_valid = hits = 0
        for r in samples:
            if reward_counts(r):
                reward = float(r["reward"])
                score += reward
                valid_sum += reward
                n_valid += 1
                c += reward >= 1
            hits += bool(r.get("resolved"))
        out.append((len(samples), int(c), score, valid_sum, n_valid, hits))
    return out


def _ci(interval: Any) -> Interval:
    """An interval of ``_stats.intervals`` with its numbers rounded, as the metrics hold it."""
    return rounded(interval)


def _per_k(
    counts: list[tuple[int, int]], estimator: Callable[[int, int, int], float]
) -> tuple[dict[str, float], dict[str, Interval]]:
    """Mean over tasks of a per-task estimator of (samples, passes), and its interval over tasks, for every k up
    to the most samples a task has; a task with fewer than k samples (a run cut short) is left out at that k.
    Empty with one sample per task."""
    max_n = max((n for n, _ in counts), default=0)
    if max_n < 2:
        return {}, {}
    values: dict[str, float] = {}
    cis: dict[str, Interval] = {}
    for k in range(1, max_n + 1):
        vals = [estimator(n, c, k) for n, c in counts if n >= k]
        values[str(k)] = round(sum(vals) / len(vals), 6) if vals else 0.0
        cis[str(k)] = _ci(mean_interval(vals, bounds=(0.0, 1.0)))
    return values, cis


def _counts(groups: Groups) -> list[tuple[int, int]]:
    return [(len(s), sum(passed(r) for r in s)) for s in groups.values()]


def pass_at_k(groups: Groups) -> dict[str, float]:
    """pass@k (at least one of k samples passes; the estimator of Chen et al., 2021) for every k."""
    return _per_k(_counts(groups), pass_at_k_of)[0]


def pass_hat_k(groups: Groups) -> dict[str, float]:
    """pass^k (all of k samples pass) for every k."""
    return _per_k(_counts(groups), pass_hat_k_of)[0]


def _intervals(tasks: list[tuple[int, int, float, float, int, int]], resolved: bool) -> dict[str, Interval]:
    """The ``<figure>_ci`` entries: each figure's interval over tasks (``_stats.intervals``)."""
    sizes = [t[0] for t in tasks]
    unit = (0.0, 1.0)
    out: dict[str, Interval] = {
        "mean_reward_ci": _ci(ratio_interval([t[2] for t in tasks], sizes)),
        "pass_rate_ci": _ci(ratio_interval([t[1] for t in tasks], sizes, bounds=unit)),
    }
    valid = [t for t in tasks if t[4]]
    out["mean_reward_valid_ci"] = _ci(ratio_interval([t[3] for t in valid], [t[4] for t in valid]))
    if resolved:
        out["resolved_rate_ci"] = _ci(ratio_interval([t[5] for t in tasks], sizes, bounds=unit))
    return out


def error_class(row: ResultRow) -> str | None:
    """The error class a sample counts under (None: it completed)."""
    return None if row["status"] == AttemptStatus.COMPLETED else row.get("error_class") or "agent"


class ErrorCounts:
    """``n_errors`` and ``errors_by_class`` of a set of rows, kept as rows are added or replaced (O(1) each), for
    what is rewritten while a run goes on (``run.json``)."""

    def __init__(self) -> None:
        self.by_class: Counter[str] = Counter()

    def replace(self, old: ResultRow | None, new: ResultRow) -> None:
        if old is not None and (cls := error_class(old)) is not None:
            self.by_class[cls] -= 1
        if (cls := error_class(new)) is not None:
            self.by_class[cls] += 1

    def metrics(self) -> ErrorCounted:
        return {
            "n_errors": sum(self.by_class.values()),
            "errors_by_class": {c: self.by_class.get(c, 0) for c in ERROR_CLASSES},
        }


def compute_metrics(rows: Iterable[ResultRow]) -> RunMetrics:
    rows = list(rows)
    groups = by_task(rows)
    n_samples = len(rows)
    completed = [r for r in rows if r["status"] == AttemptStatus.COMPLETED]
    errors = [r for r in rows if r["status"] != AttemptStatus.COMPLETED]
    valid = [r["reward"] for r in rows if reward_counts(r)]
    by_class = Counter(error_class(r) for r in errors)
    n_tries = sum(r["attempts"] for r in rows)
    resolved_known = [r for r in rows if r.get("resolved") is not None]
    durations = [r["duration_s"] for r in rows]
    tokens = {k: sum(r["tokens"].get(k, 0) for r in rows) for k in ("input", "output", "cached")}
    metrics: RunMetrics = {  # type: ignore[typeddict-item]  # the roles' usage when used; intervals below
        "n_tasks": len(groups),
        "n_samples": n_samples,
        "samples_per_task": max((len(s) for s in groups.values()), default=0),
        "n_tries": n_tries,
        "n_completed": len(completed),
        "n_errors": len(errors),
        "errors_by_class": {c: by_class.get(c, 0) for c in ERROR_CLASSES},  # type: ignore[typeddict-item]
        "n_retries": n_tries - n_samples,
        "mean_reward": round(sum(valid) / n_samples, 6) if n_samples else 0.0,
        "mean_reward_denominator": n_samples,
        "mean_reward_stderr": None,  # the clustered standard error of mean_reward_ci, set below
        "mean_reward_valid": round(sum(valid) / len(valid), 6) if valid else None,
        "n_valid_rewards": len(valid),
        "pass_rate": round(sum(1 for v in valid if v >= 1) / n_samples, 6) if n_samples else 0.0,
        "tokens": tokens,
        **run_costs(rows),
        **_role_usage(rows),
        "duration_s": {
            "p50": percentile(durations, 0.5),
            "p90": percentile(durations, 0.9),
            "max": round(max(durations), 4) if durations else 0.0,
        },
    }
    per_task = _per_task(groups)
    metrics.update(_intervals(per_task, bool(resolved_known)))  # type: ignore[typeddict-item]
    metrics["mean_reward_stderr"] = metrics["mean_reward_ci"]["se"]
    for name, estimator in (("pass_at_k", pass_at_k_of), ("pass_hat_k", pass_hat_k_of)):
        values, cis = _per_k([(t[0], t[1]) for t in per_task], estimator)
        if values:
            metrics[name], metrics[f"{name}_ci"] = values, cis  # type: ignore[literal-required]
    if resolved_known:
        metrics["resolved"] = sum(1 for r in rows if r.get("resolved"))
        metrics["resolved_rate"] = round(metrics["resolved"] / n_samples, 6) if n_samples else 0.0
    metrics.update(integrity_metrics(groups, bool(resolved_known)))  # type: ignore[typeddict-item]
    return metrics


def _clean(row: ResultRow) -> bool:
    return (row.get("integrity") or {}).get("verdict") in (None, "clean")


def integrity_metrics(groups: Groups, resolved: bool) -> IntegrityMetrics:
    """With an integrity scan (rows carrying ``integrity``): ``integrity_flagged`` (samples whose verdict is
    suspect or hack), ``integrity_verdicts`` (counts by verdict, ``unscanned`` included), and
    ``resolved_rate_clean``: the share of samples resolved (passed, for benchmarks without a resolved notion)
    with a clean verdict, with its interval over tasks ``resolved_rate_clean_ci``."""
    rows = [r for samples in groups.values() for r in samples]
    if not any("integrity" in r for r in rows):
        return IntegrityMetrics()
    verdicts = Counter((r.get("integrity") or {}).get("verdict") or "unscanned" for r in rows)
    hit = (lambda r: bool(r.get("resolved"))) if resolved else passed
    per_task = [sum(1 for r in samples if hit(r) and _clean(r)) for samples in groups.values()]
    sizes = [len(samples) for samples in groups.values()]
    n = sum(sizes)
    return {
        "integrity_flagged": verdicts.get("suspect", 0) + verdicts.get("hack", 0),
        "integrity_verdicts": {k: verdicts.get(k, 0) for k in ("clean", "suspect", "hack", "unscanned")},  # type: ignore[typeddict-item]
        "resolved_rate_clean": round(sum(per_task) / n, 6) if n else 0.0,
        "resolved_rate_clean_ci": _ci(ratio_interval(per_task, sizes, bounds=(0.0, 1.0))),
    }
