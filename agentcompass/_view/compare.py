"""Two runs of the same benchmark side by side: per-task outcomes linked to their attempts, and the numbers of
``agentcompass compare`` (one implementation: ``agentcompass._analysis.compare``).

A task's outcome is the mean score of its samples (an error counting 0, as ``mean_reward`` counts it). The
statistics are over the tasks finished in both runs, less the tasks that errored in either (listed apart; the
page names the policy): the mean difference B - A with its task-clustered t interval and the seeded paired
bootstrap interval, the paired test's p-value, the power. A task *gained* when B's outcome is higher than A's,
*lost* when lower (for pass / fail tasks: passed in one run only).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .discover import RunRef
from .payloads import ComparePage, CompareTask, RunRow, TaskOutcome
from .runs import _norm, final_rows, run_row, task_rows

if TYPE_CHECKING:
    from agentcompass._analysis.compare import RunScores
    from agentcompass._analysis.comparison import CompareMeta, Comparison


def _per_task(ref: RunRef) -> dict[str, TaskOutcome]:
    rewards: dict[str, list[float]] = {}
    statuses: dict[str, list[str]] = {}
    paths: dict[str, str | None] = {}
    for row in task_rows(ref):
        if row["status"] in ("running", "pending"):
            continue
        tid = row["id"]
        if tid not in paths:
            paths[tid], rewards[tid], statuses[tid] = row.get("path"), [], []
        rewards[tid].append(float(row["reward"] or 0.0) if row["status"] == "completed" else 0.0)
        statuses[tid].append(row["outcome"])
    return {
        k: {
            "reward": sum(v) / len(v),
            "n": len(v),
            "outcome": statuses[k][0] if len(set(statuses[k])) == 1 else "mixed",
            "path": paths[k],
        }
        for k, v in rewards.items()
    }


def _scores(ref: RunRef, label: str, row: RunRow) -> RunScores:
    from agentcompass._analysis.compare import scores_from_rows

    meta: CompareMeta = {
        "run_name": row.get("run_name"),
        "run_id": row.get("run_id"),
        "benchmark": row.get("benchmark"),
        "harness": row.get("harness"),
        "model": row.get("model"),
        "mean_reward": row.get("mean_reward"),
    }
    return scores_from_rows(label, str(ref.path), meta, [_norm(r) for r in final_rows(ref)])


def _statistics(ref_a: RunRef, ref_b: RunRef, ra: RunRow, rb: RunRow) -> Comparison | None:
    """The comparison of ``agentcompass compare`` (None for runs of different benchmarks)."""
    from agentcompass._analysis.compare import compare as build

    if ra.get("benchmark") != rb.get("benchmark"):
        return None
    return build([_scores(ref_a, "A", ra), _scores(ref_b, "B", rb)])


def compare(ref_a: RunRef, ref_b: RunRef) -> ComparePage:
    ta, tb = _per_task(ref_a), _per_task(ref_b)
    ra, rb = run_row(ref_a), run_row(ref_b)
    comparison = _statistics(ref_a, ref_b, ra, rb)
    pair = comparison["pairs"][0] if comparison else None
    gained, lost = set(pair["b_better"]) if pair else set(), set(pair["a_better"]) if pair else set()
    rows: list[CompareTask] = []
    for tid in sorted(set(ta) | set(tb)):
        a, b = ta.get(tid), tb.get(tid)
        flip = "gained" if tid in gained else "lost" if tid in lost else None
        delta = round(b["reward"] - a["reward"], 6) if a and b else None
        rows.append({"id": tid, "a": a, "b": b, "flip": flip, "delta": delta})
    return {
        "a": ra,
        "b": rb,
        "same_benchmark": ra.get("benchmark") == rb.get("benchmark"),
        "stats": pair,
        "comparison": comparison,
        "n_gained": len(gained),
        "n_lost": len(lost),
        "only_a": sorted(set(ta) - set(tb)),
        "only_b": sorted(set(tb) - set(ta)),
        "tasks": rows,
    }
