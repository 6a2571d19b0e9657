"""Run-level SWE-bench outputs: ``preds.jsonl`` and ``<model>.<run_id>.json`` (schema_version 2).

Built from the attempt directories named in the run's results rows: ``prediction.json`` (written by every
grading, empty patches included) says what was submitted, ``report.json`` whether it was completed/resolved.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentcompass.kit import write_atomic

from .infra_failure import TIER_ENVIRONMENT, classify_files
from .shapes import ResultRow, RunReport


def _attempt_dir(run_dir: Path, row: ResultRow) -> Path | None:
    value = row.get("attempt_dir")
    if not value:
        return None
    path = Path(value)
    return path if path.is_absolute() else run_dir / path


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def collect(
    run_dir: Path, rows: list[ResultRow]
) -> tuple[list[str], dict[str, dict[str, object]], dict[str, object], dict[str, Path]]:
    """(task ids in order, predictions by id, report.json contents by id (None when unreadable), the attempt
    directory of each prediction)."""
    ids: list[str] = []
    preds: dict[str, dict[str, object]] = {}
    reports: dict[str, object] = {}
    folders: dict[str, Path] = {}
    for row in rows:
        task_id = str(row.get("task_id"))
        if task_id not in ids:
            ids.append(task_id)
        folder = _attempt_dir(run_dir, row)
        if folder is None:
            continue
        pred = _read_json(folder / "prediction.json")
        if isinstance(pred, dict) and pred.get("instance_id") == task_id:
            preds[task_id], folders[task_id] = pred, folder
            reports.pop(task_id, None)
            if (folder / "report.json").is_file():
                reports[task_id] = _read_json(folder / "report.json")
    return ids, preds, reports, folders


def classify(
    ids: list[str], preds: Mapping[str, Mapping[str, object]], reports: dict[str, object]
) -> dict[str, set[str]]:
    """SWE-bench's buckets: no prediction -> incomplete; empty patch -> empty_patch; no report -> error;
    a report -> completed, then resolved or unresolved."""
    out: dict[str, set[str]] = {
        k: set() for k in ("completed", "incomplete", "empty_patch", "resolved", "unresolved", "error")
    }
    for task_id in ids:
        if task_id not in preds:
            out["incomplete"].add(task_id)
        elif preds[task_id].get("model_patch") in ("", None):
            out["empty_patch"].add(task_id)
        elif task_id not in reports:
            out["error"].add(task_id)
        else:
            out["completed"].add(task_id)
            report = reports[task_id]
            entry = (report or {}).get(task_id) if isinstance(report, dict) else None
            if not isinstance(entry, dict) or "resolved" not in entry:
                out["error"].add(task_id)
            elif entry["resolved"]:
                out["resolved"].add(task_id)
            else:
                out["unresolved"].add(task_id)
    return out


def failure_tags(ids: set[str], folders: dict[str, Path]) -> dict[str, tuple[str, str]]:
    """Advisory infra-failure tags of unresolved / error instances, from test_output.txt and run_instance.log."""
    tags = {}
    for task_id in ids:
        folder = folders.get(task_id)
        tag = classify_files(folder / "test_output.txt", folder / "run_instance.log") if folder else None
        if tag:
            tags[task_id] = tag
    return tags


def run_report(
    ids: list[str],
    preds: Mapping[str, Mapping[str, object]],
    reports: dict[str, object],
    folders: dict[str, Path],
    submitted: Mapping[str, Mapping[str, object]] | None = None,
) -> RunReport:
    """swebench 5.x's run report (same keys, same order). ``submitted``: every prediction given to the run
    (a predictions file may hold more than the selected instances), default ``preds``."""
    b = classify(ids, preds, reports)
    tags = failure_tags(b["unresolved"] | b["error"], folders)
    infra = {i for i, (_, tier) in tags.items() if tier == TIER_ENVIRONMENT}
    ambiguous = set(tags) - infra
    submitted = preds if submitted is None else submitted
    return {
        "total_instances": len(ids),
        "submitted_instances": len(submitted),
        "completed_instances": len(b["completed"]),
        "resolved_instances": len(b["resolved"]),
        "unresolved_instances": len(b["unresolved"]),
        "infra_failure_instances": len(infra),
        "ambiguous_failure_instances": len(ambiguous),
        "empty_patch_instances": len(b["empty_patch"]),
        "error_instances": len(b["error"]),
        "completed_ids": sorted(b["completed"]),
        "incomplete_ids": sorted(b["incomplete"]),
        "empty_patch_ids": sorted(b["empty_patch"]),
        "submitted_ids": sorted(submitted),
        "resolved_ids": sorted(b["resolved"]),
        "unresolved_ids": sorted(b["unresolved"]),
        "infra_failure_ids": sorted(infra),
        "ambiguous_failure_ids": sorted(ambiguous),
        "failure_reasons": {i: tags[i][0] for i in sorted(tags)},
        "error_ids": sorted(b["error"]),
        "schema_version": 2,
    }


def write_run_outputs(
    run_dir: Path,
    rows: list[ResultRow],
    run_id: str,
    default_model: str,
    submitted: Mapping[str, Mapping[str, object]] | None = None,
    suffix: str = "",
) -> dict[str, str]:
    """Write preds.jsonl and the run report into ``run_dir``; return their paths. The report is named after
    the first prediction's model, as SWE-bench names it. ``suffix`` (``.sample-2``) names the files of one
    sample of a run with repeated samples: ``preds.sample-2.jsonl``, ``<model>.<run_id>.sample-2.json``."""
    ids, preds, reports, folders = collect(run_dir, rows)
    lines = [
        json.dumps(
            {
                "instance_id": p["instance_id"],
                "model_name_or_path": p.get("model_name_or_path"),
                "model_patch": p.get("model_patch"),
            }
        )
        for p in (preds[i] for i in ids if i in preds)
    ]
    preds_path = run_dir / f"preds{suffix}.jsonl"
    write_atomic(preds_path, "".join(line + "\n" for line in lines))
    first = next(iter((submitted or preds).values()), {})
    model = first.get("model_name_or_path") or default_model
    report_path = run_dir / f"{str(model).replace('/', '__')}.{run_id}{suffix}.json"
    write_atomic(report_path, json.dumps(run_report(ids, preds, reports, folders, submitted), indent=4) + "\n")
    return {"predictions": str(preds_path), "report": str(report_path)}
