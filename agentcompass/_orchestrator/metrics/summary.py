"""The ``summary`` section of a run's result (one row per task, with its samples) and the table the CLI prints."""

from __future__ import annotations

from collections import Counter
from typing import Any

from agentcompass.interfaces import AttemptStatus

from ..record import (
    IntegritySummary,
    Interval,
    NotRunSample,
    NotRunTask,
    ResultRow,
    RunMetadata,
    RunMetrics,
    RunResult,
    RunSummary,
    TaskSummary,
)
from .costs import format_cost, run_costs
from .metrics import by_task, passed, scored

SAMPLE_KEYS = (
    "sample",
    "status",
    "reward",
    "rewards",
    "resolved",
    "attempts",
    "error",
    "duration_s",
    "tokens",
    "cost_usd",
    "cache_hits",
    "cost_saved_usd",
    "exit_status",
    "limit_hit",
    "attempt_dir",
    "integrity",
)
TASK_KEYS = (
    "task_id",
    "status",
    "reward",
    "rewards",
    "resolved",
    "attempts",
    "error",
    "duration_s",
    "tokens",
    "cost_usd",
    "cache_hits",
    "cost_saved_usd",
    "exit_status",
    "limit_hit",
    "integrity",
)
_SEVERITY = {None: 0, "clean": 0, "suspect": 1, "hack": 2}


def worst_integrity(samples: list[ResultRow]) -> IntegritySummary | None:
    """A task's integrity over its samples: the worst verdict, every detector that fired (None: unscanned)."""
    scanned = [i for s in samples if (i := s.get("integrity"))]
    if not scanned:
        return None
    worst = max(scanned, key=lambda i: _SEVERITY.get(i.get("verdict"), 0))
    out = {"verdict": worst.get("verdict"), "detectors": sorted({d for i in scanned for d in i.get("detectors", [])})}
    reviews = sorted({i["review"] for i in scanned if i.get("review")})  # the LLM review's verdicts, when reviewed
    return {**out, "review": reviews} if reviews else out


def outcome_of(row: ResultRow) -> str:
    if row["status"] != AttemptStatus.COMPLETED:
        return f"error:{row.get('error_class') or 'agent'}"
    return "passed" if (row["reward"] or 0) >= 1 else "failed"


def task_summary(samples: list[ResultRow]) -> TaskSummary:
    """One task's summary row. With one sample it carries that sample's fields; with several, ``reward`` is the
    task's mean reward over its samples (errors as 0), ``status`` is ``error`` when any sample ended in one,
    ``error`` is the first sample error, and attempts, durations, tokens and cost are summed."""
    if len(samples) == 1:
        row: dict[str, object] = {k: samples[0].get(k) for k in TASK_KEYS}
    else:
        first_error = next((s.get("error") for s in samples if s.get("error")), None)
        any_error = any(s["status"] != AttemptStatus.COMPLETED for s in samples)
        row = {
            "task_id": samples[0]["task_id"],
            "status": AttemptStatus.ERROR if any_error else AttemptStatus.COMPLETED,
            "reward": None,
            "rewards": {},
            "resolved": None,
            "attempts": sum(s["attempts"] for s in samples),
            "error": first_error,
            "duration_s": round(sum(s["duration_s"] for s in samples), 4),
            "tokens": {
                k: sum((s.get("tokens") or {}).get(k, 0) for s in samples) for k in ("input", "output", "cached")
            },
            **run_costs(samples),
            "exit_status": None,
            "limit_hit": None,
            "integrity": worst_integrity(samples),
        }
    mean = sum(scored(s) for s in samples) / len(samples)
    if len(samples) > 1:
        row["reward"] = round(mean, 6)
    row.update(
        n_samples=len(samples),
        mean_reward=round(mean, 6),
        n_passed=sum(passed(s) for s in samples),
        samples=[{k: s.get(k) for k in SAMPLE_KEYS} for s in samples],
    )
    return row  # type: ignore[return-value]  # TASK_KEYS and the keys set here


NOT_STARTED, CANCELLED = "not_started", "cancelled"


def not_run_reason(status: str, stopped: BaseException | None) -> str:
    """Why samples of a run that ended did not run: the error that stopped the request, or how the run ended."""
    if stopped is not None:
        from agentcompass.errors import one_line

        return f"the request stopped: {one_line(stopped)}"
    return {
        "cancelled": "the run was cancelled",
        "timeout": "the run reached its timeout",
        "stopped_budget": "the run's budget was reached",
    }.get(str(status), f"the run ended ({status})")


def not_run_rows(missing: list[tuple[str, int, bool]], reason: str) -> list[NotRunTask]:
    """One row per task with samples that did not finish: ``(task id, sample, started)`` each; ``status``
    ``cancelled`` when one of them had started (its attempt was cut short), else ``not_started``."""
    tasks: dict[str, list[NotRunSample]] = {}
    for task_id, sample, started in missing:
        tasks.setdefault(task_id, []).append({"sample": sample, "status": CANCELLED if started else NOT_STARTED})
    return [
        {
            "task_id": task_id,
            "status": CANCELLED if any(s["status"] == CANCELLED for s in samples) else NOT_STARTED,
            "samples": sorted(samples, key=lambda s: s["sample"]),
            "reason": reason,
        }
        for task_id, samples in sorted(tasks.items())
    ]


def build_summary(rows: list[ResultRow], not_run: list[NotRunTask] | None = None) -> RunSummary:
    """Outcome counts over samples, one row per task (sorted by id) with its finished samples, and ``not_run``:
    the tasks with samples the run did not finish, each with its status and why (empty for a complete run)."""
    counts = Counter(outcome_of(r) for r in rows)
    return {
        "outcomes": dict(sorted(counts.items())),
        "tasks": [task_summary(samples) for samples in by_task(rows).values()],
        "not_run": list(not_run or []),
    }


TABLE_LEGEND = (
    "columns: reward = the task's mean over its samples (errors as 0); passed = samples with reward >= 1 / "
    "samples; tries = attempts, retries included; s/sample = mean seconds of a sample (its final attempt)"
)


def _passed(row: TaskSummary) -> int:
    if "n_passed" in row:
        return int(row["n_passed"])
    return int(row["status"] == "completed" and (row["reward"] or 0) >= 1)


def _task_line(row: TaskSummary) -> str:
    reward = "-" if row["reward"] is None else f"{row['reward']:.3f}"
    err = (row["error"] or {}).get("message") or ""
    samples = row.get("n_samples", 1) or 1
    passes = f"{_passed(row)}/{samples}"
    return (
        f"{row['task_id'][:40]:<40} {row['status']:<11} {reward:>8} {passes:>7} {row['attempts']:>5} "
        f"{row['duration_s'] / samples:>8.2f}  {err}"
    )  # whole: the end of a message is what matters


def _not_run_line(row: NotRunTask, same: bool) -> str:
    """A task the run did not finish: its status, the samples (with several) and why (once for a run of them)."""
    samples = row["samples"]
    which = "" if samples == [{"sample": 1, "status": row["status"]}] else f"samples {_numbers(samples)}: "
    why = "(the same)" if same else row["reason"]
    return f"{row['task_id'][:40]:<40} {row['status']:<11} {'-':>8} {'-':>7} {'-':>5} {'-':>8}  {which}{why}"


def _numbers(samples: list[NotRunSample]) -> str:
    return ", ".join(f"{s['sample']}{' (cancelled)' if s['status'] == CANCELLED else ''}" for s in samples)


def _n(count: Any, noun: str) -> str:
    """``1 task``, ``7 tasks``: a count with its unit."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _ci_text(ci: Interval | None) -> tuple[str, str]:
    """``[low, high]`` and ``method over N tasks`` of an interval (``-`` without one)."""
    if not ci or ci.get("low") is None:
        return "-", (ci or {}).get("method") or "none"
    return f"[{ci['low']:.4f}, {ci['high']:.4f}]", f"{ci['method']} over {_n(ci['n'], 'task')}"


def figures_lines(m: RunMetrics) -> list[str]:
    """Every headline figure with its 95 % interval and the interval's method (older summaries have no
    intervals: their rows show ``-``)."""
    rows: list[tuple[str, float | None, Interval | None, str]] = [
        ("mean_reward", m["mean_reward"], m.get("mean_reward_ci"), " (errors count 0)"),
        ("mean_reward_valid", m.get("mean_reward_valid"), m.get("mean_reward_valid_ci"), " (valid rewards only)"),
        ("pass_rate", m["pass_rate"], m.get("pass_rate_ci"), ""),
    ]
    if "resolved_rate" in m:
        rows.append(("resolved_rate", m["resolved_rate"], m.get("resolved_rate_ci"), ""))
    if "resolved_rate_clean" in m:
        rows.append(("resolved_clean", m["resolved_rate_clean"], m.get("resolved_rate_clean_ci"), " (integrity clean)"))
    for name, sign in (("pass_at_k", "@"), ("pass_hat_k", "^")):
        for k, v in (m.get(name) or {}).items():
            rows.append((f"pass{sign}{k}", v, (m.get(f"{name}_ci") or {}).get(k), ""))
    lines = [f"{'figure':<18} {'value':>7}  {'95% interval':<18}  method"]
    for name, value, ci, note in rows:
        bounds, method = _ci_text(ci)
        shown = "-" if value is None else f"{value:.4f}"
        lines.append(f"{name:<18} {shown:>7}  {bounds:<18}  {method}{note}")
    return lines


def _sessions(meta: RunMetadata) -> str:
    """`` over N sessions (this one: S s, K samples)`` for a run continued by ``--reuse``."""
    sessions = meta.get("sessions") or []
    if len(sessions) < 2:
        return ""
    last = sessions[-1]
    return (
        f" over {len(sessions)} sessions since {meta['started_at'][:19]}Z "
        f"(this one: {float(last.get('duration_s') or 0):.1f}s, {last.get('samples_run')} samples run)"
    )


def _integrity_line(m: RunMetrics, tasks: list[TaskSummary]) -> str:
    """``integrity: N of M samples flagged (hack H, suspect S): task, task ...`` (the scan, docs/integrity.md)."""
    v = m.get("integrity_verdicts") or {}
    flagged = [t["task_id"] for t in tasks if (t.get("integrity") or {}).get("verdict") in ("suspect", "hack")]
    names = f": {', '.join(flagged[:8])}{' ...' if len(flagged) > 8 else ''}" if flagged else ""
    return (
        f"integrity: {m['integrity_flagged']} of {m.get('n_samples', m['n_tasks'])} samples flagged "
        f"(hack {v.get('hack', 0)}, suspect {v.get('suspect', 0)}){names}{_review_note(m.get('integrity_review'))}"
    )


def _review_note(r: dict[str, Any] | None) -> str:
    """``; review of N: hack H, suspect S, clean C, errors E, cost $X`` (the LLM review, docs/integrity.md)."""
    if not r:
        return ""
    if r.get("error"):
        return f"; review failed: {r['error']}"
    v = r.get("verdicts") or {}
    return (
        f"; review of {r.get('n_selected', 0)}: hack {v.get('hack', 0)}, suspect {v.get('suspect', 0)}, clean "
        f"{v.get('clean', 0)}, errors {r.get('n_errors', 0)}, cost_usd {format_cost(r.get('cost_usd'))}"
    )


def format_table(result: RunResult) -> str:
    """The readable summary printed at the end of a CLI run."""
    m, meta = result["metrics"], result["metadata"]
    lines = [
        f"run {meta['run_name']}/{meta['run_id']}: {meta['status']} in {meta['duration_s']:.1f}s{_sessions(meta)}",
        TABLE_LEGEND,
        f"{'task':<40} {'status':<11} {'reward':>8} {'passed':>7} {'tries':>5} {'s/sample':>8}  error",
    ]
    lines += [_task_line(row) for row in result["summary"]["tasks"]]
    not_run = result["summary"].get("not_run") or []
    lines += [_not_run_line(row, i > 0 and row["reason"] == not_run[i - 1]["reason"]) for i, row in enumerate(not_run)]
    valid = m["mean_reward_valid"]
    n_samples = m.get("n_samples", m["n_tasks"])
    tasks = _n(m["n_tasks"], "task")
    over = tasks if n_samples == m["n_tasks"] else f"{_n(n_samples, 'sample')} of {tasks}"
    se = m.get("mean_reward_stderr")
    lines.append(
        f"tasks={m['n_tasks']} samples={n_samples} tries={m.get('n_tries', m.get('n_attempts'))} "
        f"(retries={m['n_retries']}) errors={m['n_errors']} of {n_samples} samples "
        f"mean_reward={m['mean_reward']:.4f}{'' if se is None else f' (se {se:.4f})'} (over {over}, errors as 0) "
        f"mean_reward_valid={'-' if valid is None else f'{valid:.4f}'} "
        f"(over {m['n_valid_rewards']} samples) pass_rate={m['pass_rate']:.4f} (of {n_samples} samples)"
    )
    lines += figures_lines(m)
    if "resolved" in m:
        lines.append(f"resolved={m['resolved']}/{n_samples} samples ({m['resolved_rate']:.4f})")
    if "integrity_flagged" in m:
        lines.append(_integrity_line(m, result["summary"]["tasks"]))
    if m["tokens"]["input"] or m.get("cost_usd", 0) != 0 or m.get("cache_hits"):
        hits = (
            f" cache_hits={m['cache_hits']} saved_usd={format_cost(m.get('cost_saved_usd'))}"
            if m.get("cache_hits")
            else ""
        )
        lines.append(
            f"tokens in={m['tokens']['input']} out={m['tokens']['output']} "
            f"cached={m['tokens']['cached']} cost_usd={format_cost(m.get('cost_usd'))}{hits}"
        )
    lines.append(f"results: {result['paths']['run_dir']}")
    return "\n".join(lines)
