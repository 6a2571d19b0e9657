"""Two runs of the same benchmark side by side: per-task rewards, the tasks that flipped, and the mean
difference with its standard error.

A task's reward is its final reward, an error counting 0 (as ``mean_reward`` counts it); with repeated
samples, the mean over its samples. Only tasks finished in both runs are paired. With paired differences
``d_i = reward_B(i) - reward_A(i)`` over the ``n`` common tasks, the mean difference is ``mean(d)`` and its
standard error ``stdev(d) / sqrt(n)`` (sample standard deviation, ``n - 1`` degrees of freedom; none for
``n < 2``). A task *flipped* when it passed (reward >= 1) in one run and not in the other.
"""

from __future__ import annotations

import math
from typing import Any

from .discover import RunRef
from .runs import run_row, task_rows


def _per_task(ref: RunRef) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for row in task_rows(ref):
        if row["status"] in ("running", "pending"):
            continue
        entry = out.setdefault(row["id"], {"rewards": [], "statuses": [], "path": row.get("path")})
        entry["rewards"].append(float(row["reward"] or 0.0) if row["status"] == "completed" else 0.0)
        entry["statuses"].append(row["outcome"])
    return {
        k: {
            "reward": sum(v["rewards"]) / len(v["rewards"]),
            "n": len(v["rewards"]),
            "outcome": v["statuses"][0] if len(set(v["statuses"])) == 1 else "mixed",
            "path": v["path"],
        }
        for k, v in out.items()
    }


def paired_stats(a: list[float], b: list[float]) -> dict[str, Any]:
    n = len(a)
    if n == 0:
        return {"n": 0, "mean_a": None, "mean_b": None, "mean_diff": None, "se": None}
    d = [y - x for x, y in zip(a, b, strict=True)]
    mean = sum(d) / n
    se = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1) / n) if n > 1 else None
    return {
        "n": n,
        "mean_a": round(sum(a) / n, 6),
        "mean_b": round(sum(b) / n, 6),
        "mean_diff": round(mean, 6),
        "se": None if se is None else round(se, 6),
    }


def compare(ref_a: RunRef, ref_b: RunRef) -> dict[str, Any]:
    ta, tb = _per_task(ref_a), _per_task(ref_b)
    common = sorted(set(ta) & set(tb))
    rows, gained, lost = [], 0, 0
    for tid in sorted(set(ta) | set(tb)):
        a, b = ta.get(tid), tb.get(tid)
        flip = None
        if a and b and (a["reward"] >= 1) != (b["reward"] >= 1):
            flip = "gained" if b["reward"] >= 1 else "lost"
            gained, lost = gained + (flip == "gained"), lost + (flip == "lost")
        rows.append(
            {"id": tid, "a": a, "b": b, "flip": flip, "delta": round(b["reward"] - a["reward"], 6) if a and b else None}
        )
    ra, rb = run_row(ref_a), run_row(ref_b)
    stats = paired_stats([ta[t]["reward"] for t in common], [tb[t]["reward"] for t in common])
    return {
        "a": ra,
        "b": rb,
        "same_benchmark": ra.get("benchmark") == rb.get("benchmark"),
        "stats": stats,
        "n_gained": gained,
        "n_lost": lost,
        "only_a": sorted(set(ta) - set(tb)),
        "only_b": sorted(set(tb) - set(ta)),
        "tasks": rows,
    }
