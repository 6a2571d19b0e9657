"""Outcome breakdown, distributions, grouped error messages and the slowest / costliest tasks."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Literal

from agentcompass._orchestrator.metrics import percentile as _percentile
from agentcompass.interfaces import AttemptStatus, sum_cost

from .collect import OUTCOMES, TaskRecord
from .shapes import AttemptFile, Breakdown, Described, Distributions, ErrorGroup, TopTask

DIST_FIELDS = ("turns", "input_tokens", "output_tokens", "total_tokens", "cost_usd", "duration_s")
_NORMALIZERS = (
    (re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>]*[^\s'\"<>:,.;)]", re.I), "<url>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "<id>"),
    (re.compile(r"(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:/[\w.@+~-]+)+/?"), "<path>"),
    (re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b", re.I), "<id>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?Z?\b"), "<time>"),
    (re.compile(r"\b0x[0-9a-f]+\b", re.I), "<id>"),
    (re.compile(r"(?<![A-Za-z])\d+(?:\.\d+)?"), "<n>"),
)


def normalize_message(message: str) -> str:
    """The message with ids, paths, times and numbers replaced, so similar messages group together."""
    text = " ".join((message or "").split())
    for rx, repl in _NORMALIZERS:
        text = rx.sub(repl, text)
    return text[:300]


def percentile(values: list[float], q: float) -> float:
    return _percentile(values, q, digits=6)


def task_values(rec: TaskRecord) -> dict[str, float]:
    """Per task: tokens, cost and duration summed over its attempts; turns of the final attempt."""
    attempts = rec.attempts or [rec.final]
    usage = [a.get("usage") or {} for a in attempts]
    n_in = sum(int(u.get("input", 0) or 0) for u in usage)
    n_out = sum(int(u.get("output", 0) or 0) for u in usage)
    return {
        "turns": float((rec.final.get("agent") or {}).get("n_turns") or 0),
        "input_tokens": float(n_in),
        "output_tokens": float(n_out),
        "total_tokens": float(n_in + n_out),
        "cost_usd": _round(sum_cost(u.get("cost_usd", 0.0) for u in usage), 8),
        "duration_s": round(sum(float(a.get("duration_s", 0) or 0) for a in attempts), 4),
    }


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def describe(values: list[float]) -> Described:
    return {
        "n": len(values),
        "mean": round(sum(values) / len(values), 6) if values else 0.0,
        "p50": percentile(values, 0.5),
        "p90": percentile(values, 0.9),
        "max": round(max(values), 6) if values else 0.0,
    }


def distributions(records: list[TaskRecord]) -> Distributions:
    """``{"overall": {field: stats}, "by_outcome": {outcome: {field: stats}}}`` over tasks."""
    values = [(rec.final["outcome"], task_values(rec)) for rec in records]
    overall = {f: describe([v[f] for _, v in values if v[f] is not None]) for f in DIST_FIELDS}
    by_outcome: dict[str, dict[str, Described]] = {}
    for outcome in OUTCOMES:
        group = [v for o, v in values if o == outcome]
        if group:
            by_outcome[outcome] = {f: describe([v[f] for v in group if v[f] is not None]) for f in DIST_FIELDS}
    return {"overall": overall, "by_outcome": by_outcome}


def breakdown(records: list[TaskRecord]) -> Breakdown:
    """Outcome counts of the samples (their final attempts; one per task without repeated samples) and of all
    attempts, limits, timeouts, format errors."""
    finals = [rec.final for rec in records]
    all_attempts = [a for rec in records for a in (rec.attempts or [rec.final])]
    by_class: dict[str, Counter[str]] = defaultdict(Counter)
    for att in finals:
        if att.get("status") != AttemptStatus.COMPLETED:
            by_class[att.get("error_class") or "agent"][att.get("error_type") or "Error"] += 1
    agents = [a.get("agent") or {} for a in finals]
    limits = Counter(hit for ag in agents if (hit := ag.get("limit_hit")))
    timeouts = sum(1 for ag in agents if "agent_timeout" in (ag.get("limit_hit"), ag.get("exit_status")))
    fmt = [int(ag.get("n_format_errors") or 0) for ag in agents]
    task_counts = Counter(a["outcome"] for a in finals)
    attempt_counts = Counter(a["outcome"] for a in all_attempts)
    return {
        "n_tasks": len({rec.task_id for rec in records}),
        "n_samples": len(records),
        "n_tries": len(all_attempts),
        "outcomes": {o: task_counts.get(o, 0) for o in OUTCOMES},
        "attempt_outcomes": {o: attempt_counts.get(o, 0) for o in OUTCOMES},
        "errors_by_class": {c: dict(sorted(t.items())) for c, t in sorted(by_class.items())},
        "limits_hit": dict(sorted(limits.items())),
        "agent_timeouts": timeouts,
        "format_errors": {"tasks": sum(1 for n in fmt if n > 0), "total": sum(fmt)},
        "exit_status": dict(
            sorted(Counter(str(ag.get("exit_status")) for ag in agents if ag.get("exit_status")).items())
        ),
        "tasks_retried": sum(1 for rec in records if len(rec.attempts) > 1),
    }


def _message_of(att: AttemptFile) -> str | None:
    if att.get("error"):
        return str(att["error"])
    grade_error = (att.get("grade") or {}).get("error")
    return f"VerifierError: {grade_error}" if grade_error else None


def error_groups(records: list[TaskRecord], top_n: int) -> list[ErrorGroup]:
    """The most frequent error messages of all failed attempts, grouped by normalized text."""
    groups: dict[tuple[str, str], ErrorGroup] = {}
    for rec in records:
        for att in rec.attempts or [rec.final]:
            message = _message_of(att) if att.get("status") != AttemptStatus.COMPLETED else None
            if not message:
                continue
            key = (str(att.get("error_class") or "agent"), normalize_message(message))
            g = groups.setdefault(
                key, {"pattern": key[1], "error_class": key[0], "count": 0, "example": message[:500], "tasks": []}
            )
            g["count"] += 1
            if rec.task_id not in g["tasks"]:
                g["tasks"].append(rec.task_id)
    ordered = sorted(groups.values(), key=lambda g: (-g["count"], g["pattern"]))[:top_n]
    for g in ordered:
        g["n_tasks"] = len(g["tasks"])
        g["tasks"] = g["tasks"][:10]
    return ordered


def top_tasks(records: list[TaskRecord], field: Literal["duration_s", "cost_usd"], top_n: int) -> list[TopTask]:
    """The ``top_n`` tasks with the largest ``field`` (zero values left out)."""
    rows: list[tuple[float, TopTask]] = []
    for rec in records:
        v = task_values(rec)
        value = v[field]
        if (value or 0) > 0:
            row: TopTask = {"task_id": rec.task_id}
            row[field] = value
            row["outcome"] = rec.final["outcome"]
            row["attempts"] = len(rec.attempts) or 1
            row["turns"] = int(v["turns"])
            rows.append((value, row))
    return [row for _, row in sorted(rows, key=lambda r: (-r[0], r[1]["task_id"]))][:top_n]
