"""Per-task rows and the run metrics (names fixed by the contract)."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Iterable

from agentcompass.errors import ERROR_CLASSES
from agentcompass.interfaces import AttemptStatus

from .attempt import AttemptOutcome


def task_row(final: AttemptOutcome, attempts: list[AttemptOutcome]) -> dict[str, Any]:
    """One task's final outcome: the summary row and the results.jsonl line."""
    usage = final.usage or {}
    agent = final.agent or {}
    return {
        "task_id": final.task_id,
        "status": final.status,
        "reward": final.reward,
        "rewards": final.rewards,
        "resolved": final.resolved,
        "attempts": len(attempts),
        "error": {"type": final.error_type, "message": final.error} if final.error else None,
        "error_class": final.error_class,
        "duration_s": final.duration_s,       # the attempt itself, from the moment it held its slot
        "queue_s": final.queue_s,             # its wait for the slot (not in duration_s nor its percentiles)
        "tokens": {k: usage.get(k, 0) for k in ("input", "output", "cached")},
        "cost_usd": sum((a.usage or {}).get("cost_usd", 0.0) for a in attempts),
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


def _pass_at_k(rows: list[dict[str, Any]]) -> dict[str, float]:
    samples = [[r is not None and r >= 1 for _, r in row.get("attempt_outcomes", [])] for row in rows]
    max_n = max((len(s) for s in samples), default=0)
    if max_n < 2:
        return {}
    out: dict[str, float] = {}
    for k in range(1, max_n + 1):
        vals = [1.0 - math.comb(len(s) - sum(s), k) / math.comb(len(s), k) for s in samples if len(s) >= k]
        out[str(k)] = round(sum(vals) / len(vals), 6) if vals else 0.0
    return out


def reward_counts(row: dict[str, Any]) -> bool:
    """A task's reward counts when it finished without an error, or its error's policy counts the reward
    (verified after an agent-phase error); rows of older runs carry no ``reward_valid``."""
    return row["reward"] is not None and bool(row.get("reward_valid", row["status"] == AttemptStatus.COMPLETED))


def compute_metrics(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    rows = list(rows)
    n = len(rows)
    completed = [r for r in rows if r["status"] == AttemptStatus.COMPLETED]
    errors = [r for r in rows if r["status"] != AttemptStatus.COMPLETED]
    valid = [r["reward"] for r in rows if reward_counts(r)]
    by_class = Counter(r.get("error_class") or "agent" for r in errors)
    n_attempts = sum(r["attempts"] for r in rows)
    resolved_known = [r for r in rows if r.get("resolved") is not None]
    durations = [r["duration_s"] for r in rows]
    tokens = {k: sum(r["tokens"].get(k, 0) for r in rows) for k in ("input", "output", "cached")}
    metrics: dict[str, Any] = {
        "n_tasks": n,
        "n_attempts": n_attempts,
        "n_completed": len(completed),
        "n_errors": len(errors),
        "errors_by_class": {c: by_class.get(c, 0) for c in ERROR_CLASSES},
        "n_retries": n_attempts - n,
        "mean_reward": round(sum(valid) / n, 6) if n else 0.0,
        "mean_reward_denominator": n,
        "mean_reward_valid": round(sum(valid) / len(valid), 6) if valid else None,
        "n_valid_rewards": len(valid),
        "pass_rate": round(sum(1 for v in valid if v >= 1) / n, 6) if n else 0.0,
        "tokens": tokens,
        "cost_usd": round(sum(r.get("cost_usd", 0.0) for r in rows), 6),
        "duration_s": {"p50": percentile(durations, 0.5), "p90": percentile(durations, 0.9),
                       "max": round(max(durations), 4) if durations else 0.0},
    }
    pass_at_k = _pass_at_k(rows)
    if pass_at_k:
        metrics["pass_at_k"] = pass_at_k
    if resolved_known:
        metrics["resolved"] = sum(1 for r in rows if r.get("resolved"))
        metrics["resolved_rate"] = round(metrics["resolved"] / n, 6) if n else 0.0
    return metrics


def outcome_of(row: dict[str, Any]) -> str:
    if row["status"] != AttemptStatus.COMPLETED:
        return f"error:{row.get('error_class') or 'agent'}"
    return "passed" if (row["reward"] or 0) >= 1 else "failed"


def build_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    counts = Counter(outcome_of(r) for r in rows)
    keys = ("task_id", "status", "reward", "rewards", "resolved", "attempts", "error", "duration_s",
            "tokens", "cost_usd", "exit_status", "limit_hit")
    return {"outcomes": dict(sorted(counts.items())),
            "tasks": [{k: r.get(k) for k in keys} for r in sorted(rows, key=lambda r: r["task_id"])]}


def format_table(result: dict[str, Any]) -> str:
    """The readable summary printed at the end of a CLI run."""
    m, meta = result["metrics"], result["metadata"]
    lines = [f"run {meta['run_name']}/{meta['run_id']}: {meta['status']} in {meta['duration_s']:.1f}s",
             f"{'task':<40} {'status':<10} {'reward':>8} {'tries':>5} {'secs':>8}  error"]
    for row in result["summary"]["tasks"]:
        reward = "-" if row["reward"] is None else f"{row['reward']:.3f}"
        err = (row["error"] or {}).get("message") or ""
        lines.append(f"{row['task_id'][:40]:<40} {row['status']:<10} {reward:>8} {row['attempts']:>5} "
                     f"{row['duration_s']:>8.2f}  {err}")     # whole: the end of a message is what matters
    valid = m["mean_reward_valid"]
    lines.append(f"tasks={m['n_tasks']} attempts={m['n_attempts']} errors={m['n_errors']} "
                 f"retries={m['n_retries']} mean_reward={m['mean_reward']:.4f} (over {m['n_tasks']} tasks, "
                 f"errors as 0) mean_reward_valid={'-' if valid is None else f'{valid:.4f}'} "
                 f"(over {m['n_valid_rewards']}) pass_rate={m['pass_rate']:.4f}")
    if "resolved" in m:
        lines.append(f"resolved={m['resolved']}/{m['n_tasks']} ({m['resolved_rate']:.4f})")
    if m["tokens"]["input"] or m["cost_usd"]:
        lines.append(f"tokens in={m['tokens']['input']} out={m['tokens']['output']} "
                     f"cached={m['tokens']['cached']} cost_usd={m['cost_usd']:.4f}")
    lines.append(f"results: {result['paths']['run_dir']}")
    return "\n".join(lines)
