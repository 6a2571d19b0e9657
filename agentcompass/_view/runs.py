"""What the Runs and Run pages show: one summary row per run, a run's metrics and metadata, its task table.

A finished run is read from ``summary.json`` (what ``run_evaluation`` returned). A run that is still running
(``run.json`` says so) or was killed before writing it is summarised from ``results.jsonl`` so far, with the
orchestrator's own metric functions, and marked ``partial``. Unknown extra fields are ignored; a ``sample``
field on result lines (repeated samples of one task) gives one table row per (task, sample).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from agentcompass._config import GROUPS
from agentcompass._orchestrator.record import (
    ANALYSIS_JSON,
    ANALYSIS_MD,
    CONFIG_FILE,
    FINGERPRINT_FILE,
    RESULTS_FILE,
    RUN_FILE,
    SUMMARY_FILE,
    TASKS_DIR,
    ResultRow,
    RunMetrics,
    RunResult,
)

from .discover import RunRef
from .files import read_json, read_jsonl, read_yaml, stamp
from .payloads import Components, RunDetail, RunRow, TaskRow

_COMPONENTS = GROUPS
_SECRET_KEYS = ("api_key", "apikey", "api-key", "password", "secret", "authorization", "credential")


def run_stamp(ref: RunRef) -> str:
    d = ref.path
    return stamp([d / RUN_FILE, d / RESULTS_FILE, d / SUMMARY_FILE, d / TASKS_DIR, d / ANALYSIS_MD])


def _component_id(cfg: dict[str, Any], group: str) -> str | None:
    entry = cfg.get(group)
    return (entry or {}).get("id") if isinstance(entry, dict) else None


def _components(ref: RunRef, summary: RunResult | None) -> Components:
    md = summary.get("metadata") if summary else None
    if md and md.get("benchmark"):
        model = md.get("model")
        return {
            "benchmark": md.get("benchmark"),
            "harness": md.get("harness"),
            "environment": md.get("environment"),
            "model": model.get("id") if isinstance(model, dict) else model,
        }
    cfg = read_yaml(ref.path / CONFIG_FILE) or {}
    return {  # the groups of _COMPONENTS, in order
        "benchmark": _component_id(cfg, "benchmark"),
        "harness": _component_id(cfg, "harness"),
        "model": _component_id(cfg, "model"),
        "environment": _component_id(cfg, "environment"),
    }


def final_rows(ref: RunRef) -> list[dict[str, Any]]:
    """The last line per (task, sample) of results.jsonl, in file order."""
    rows: dict[tuple[str, Any], dict[str, Any]] = {}
    for row in read_jsonl(ref.path / RESULTS_FILE):
        if isinstance(row.get("task_id"), str):
            rows[(row["task_id"], row.get("sample"))] = row
    return list(rows.values())


def _norm(row: dict[str, Any]) -> ResultRow:
    """A result line with every field the metric functions read (older or newer lines may lack some)."""
    tokens = row.get("tokens") if isinstance(row.get("tokens"), dict) else {}
    normed = {
        **row,
        "status": row.get("status") or "error",
        "attempts": int(row.get("attempts") or 1),
        "duration_s": float(row.get("duration_s") or 0.0),
        "tokens": tokens,
        "cost_usd": None if row.get("cost_usd", 0.0) is None else float(row.get("cost_usd") or 0.0),
        "attempt_outcomes": row.get("attempt_outcomes") or [],
    }
    return cast(ResultRow, normed)  # a line of any age, with the fields the metrics read: the one conversion


def _live_metrics(rows: list[dict[str, Any]]) -> RunMetrics:
    from agentcompass._orchestrator.metrics import compute_metrics

    return compute_metrics([_norm(r) for r in rows])


def _state(ref: RunRef) -> tuple[dict[str, Any], RunResult | None, RunMetrics | dict[str, Any], bool]:
    """(run.json, summary.json or None, metrics, partial)."""
    run = read_json(ref.path / RUN_FILE) or {}
    summary = read_json(ref.path / SUMMARY_FILE)
    usable = isinstance(summary, dict) and isinstance(summary.get("metrics"), dict)
    if usable and run.get("status") != "running":
        return run, summary, summary["metrics"], False
    rows = final_rows(ref)  # nothing finished yet: no figures (not the zeros of an empty set)
    return run, summary if usable else None, _live_metrics(rows) if rows else {}, True


def run_row(ref: RunRef) -> RunRow:
    """One line of the Runs page."""
    run, summary, m, partial = _state(ref)
    md = summary.get("metadata") if summary else None
    return {
        "key": ref.key,
        "run_name": run.get("run_name") or ref.path.parent.name,
        "run_id": run.get("run_id") or ref.path.name,
        "status": run.get("status") or (md.get("status") if md else None),
        **_components(ref, summary),
        "n_tasks": run.get("n_tasks") or m.get("n_tasks"),
        "n_finished": run.get("n_finished", m.get("n_samples", m.get("n_tasks"))),  # samples
        "n_samples": m.get("n_samples", m.get("n_tasks")),  # finished samples
        "n_samples_total": run.get("n_samples") or run.get("n_tasks"),
        "samples_per_task": m.get("samples_per_task") or 1,
        "mean_reward": m.get("mean_reward"),
        "mean_reward_denominator": m.get("mean_reward_denominator"),
        "pass_rate": m.get("pass_rate"),
        "resolved": m.get("resolved"),
        "n_errors": m.get("n_errors"),
        "errors_by_class": m.get("errors_by_class"),
        "tokens": m.get("tokens"),
        "cost_usd": m.get("cost_usd"),
        "duration_s": md.get("duration_s") if md and not partial else None,
        "started_at": run.get("started_at") or (md.get("started_at") if md else None),
        "updated_at": run.get("updated_at"),
        "partial": partial,
        "stamp": run_stamp(ref),
    }


def _mask(obj: Any) -> Any:
    """Belt and braces for old run directories: values of key-like fields are never shown."""
    if isinstance(obj, dict):
        return {
            k: (
                "***"
                if isinstance(k, str) and any(s in k.lower() for s in _SECRET_KEYS) and isinstance(v, str) and v
                else _mask(v)
            )
            for k, v in obj.items()
        }
    if isinstance(obj, list):
        return [_mask(v) for v in obj]
    return obj


def run_detail(ref: RunRef) -> RunDetail:
    """The Run page's header: metadata, metrics, the run's own files and the analysis, if any."""
    run, summary, metrics, partial = _state(ref)
    md = dict((summary.get("metadata") if summary else None) or {})
    md.pop("config", None)
    d = ref.path
    top = sorted(p.name for p in d.iterdir() if p.is_file() and not p.name.startswith("."))
    return {
        "key": ref.key,
        "run": run,
        "metadata": md,
        "components": _components(ref, summary),
        "metrics": metrics,
        "partial": partial,
        "config": _mask(read_yaml(d / CONFIG_FILE)),
        "files": top,
        "analysis": {n: n in top for n in (ANALYSIS_MD, ANALYSIS_JSON)},
        "paths": (summary.get("paths") if summary else None) or {},
        "stamp": run_stamp(ref),
    }


def attempt_rel(ref: RunRef, row: Mapping[str, object]) -> str | None:
    """The attempt directory of a result line, relative to the run (the run may have been moved)."""
    raw = str(row.get("attempt_dir") or "").replace("\\", "/")
    if not raw:
        return None
    root = ref.path.as_posix().rstrip("/") + "/"
    if raw.startswith(root):
        return raw[len(root) :]
    cut = raw.rfind("/tasks/")
    return raw[cut + 1 :] if cut >= 0 else None


def _task_row(ref: RunRef, row: dict[str, Any]) -> TaskRow:
    from agentcompass._orchestrator.record import safe_name

    err = row.get("error") if isinstance(row.get("error"), dict) else {}
    tokens = row.get("tokens") if isinstance(row.get("tokens"), dict) else {}
    reward, status = row.get("reward"), row.get("status") or "error"
    outcome = "error" if status != "completed" else ("passed" if (reward or 0) >= 1 else "failed")
    rewards = row.get("rewards") if isinstance(row.get("rewards"), dict) else {}
    return {
        "id": row["task_id"],
        "sample": row.get("sample"),
        "status": status,
        "outcome": outcome,
        "reward": reward,
        "sub": {k: v for k, v in rewards.items() if k != "reward"},
        "resolved": row.get("resolved"),
        "attempts": row.get("attempts"),
        "error_type": err.get("type"),
        "error": err.get("message"),
        "error_class": row.get("error_class"),
        "duration_s": row.get("duration_s"),
        "tokens_in": tokens.get("input"),
        "tokens_out": tokens.get("output"),
        "cost_usd": row.get("cost_usd"),
        "exit_status": row.get("exit_status"),
        "limit_hit": row.get("limit_hit"),
        "path": attempt_rel(ref, row),
        "dir": f"tasks/{safe_name(row['task_id'])}",
        "integrity": row.get("integrity") if isinstance(row.get("integrity"), dict) else None,
    }


def task_rows(ref: RunRef) -> list[TaskRow]:
    """The Run page's table: finished tasks, then tasks still running (a task folder exists) or pending."""

    final = final_rows(ref)
    rows = [_task_row(ref, r) for r in final]
    if not any(isinstance(r.get("sample"), int) and r["sample"] > 1 for r in final):
        for row in rows:  # one sample per task: no sample column
            row["sample"] = None
    done = {r["id"] for r in rows}
    fingerprint = read_json(ref.path / FINGERPRINT_FILE) or {}
    ids = [t for t in fingerprint.get("task_ids") or [] if isinstance(t, str) and t not in done]
    if ids:
        rows += _unfinished(ref, ids)
    return rows


def _unfinished(ref: RunRef, ids: list[str]) -> list[TaskRow]:
    """Tasks without a finished sample: running or pending while the run runs; once it ended, not started or
    cancelled, with why (the summary's ``not_run``)."""
    from agentcompass._orchestrator.record import safe_name

    tasks_dir = ref.path / TASKS_DIR
    started = {p.name for p in tasks_dir.iterdir()} if tasks_dir.is_dir() else set()
    ended = (read_json(ref.path / RUN_FILE) or {}).get("status") not in (None, "running")
    summary = read_json(ref.path / SUMMARY_FILE) or {}
    not_run = {r.get("task_id"): r for r in (summary.get("summary") or {}).get("not_run") or [] if isinstance(r, dict)}
    rows: list[TaskRow] = []
    for tid in ids:
        status = "running" if safe_name(tid) in started else "pending"
        if ended:
            status = not_run.get(tid, {}).get("status") or ("cancelled" if status == "running" else "not_started")
        rows.append(
            {
                "id": tid,
                "sample": None,
                "status": status,
                "outcome": status,
                "reward": None,
                "sub": {},
                "error": not_run.get(tid, {}).get("reason") if ended else None,
                "dir": f"tasks/{safe_name(tid)}",
                "path": None,
            }
        )
    return rows
