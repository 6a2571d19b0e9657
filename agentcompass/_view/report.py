"""``agentcompass report RUN_DIR [RUN_DIR ...] -o report.html``: the Run and Attempt views as one self-contained
file; with several runs also the Runs list and every pair's Compare page (the numbers of ``agentcompass compare``).

Styles, scripts and data are inlined; the page's Content-Security-Policy allows no network at all. Each
attempt is embedded as gzip + base64 JSON, decoded in the browser only when it is opened. To stay small enough
to attach to a pull request, what an attempt embeds is cut to ``max_attempt_kb`` (trajectory strings keep
their head and tail, long step lists their first and last steps; logs keep their tail), and every cut says so.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentcompass._orchestrator.record import ANALYSIS_JSON, ANALYSIS_MD, RUN_FILE
from agentcompass.errors import ConfigError
from agentcompass.kit import write_atomic

from . import attempts, page, runs
from .discover import RunRef
from .files import read_json, read_text
from .payloads import (
    AttemptDetail,
    ComparePage,
    ErrorView,
    Patch,
    ReportAnalysis,
    ReportCounts,
    ReportWritten,
    RunPart,
    TextFile,
)
from .trim import cut_text, shrink

DEFAULT_ATTEMPT_KB = 48
LOG_CHARS = 12_000
PATCH_CHARS = 48_000
TRACEBACK_CHARS = 12_000
ANALYSIS_CHARS = 256 * 1024
CALL_ROWS = 60  # model calls listed per attempt (the run directory has them all)


def _run_ref(run_dir: str | Path) -> RunRef:
    path = Path(run_dir).expanduser()
    if not (path / RUN_FILE).is_file():
        raise ConfigError(
            f"{str(run_dir)!r} is not a run directory (no run.json); give <results_dir>/<run_name>/<run_id>"
        )
    path = path.resolve()
    return RunRef(f"{path.parent.name}/{path.name}", path)


def _cap(part: TextFile | Patch | None, limit: int, tail_share: float = 0.75) -> None:
    if part and isinstance(part.get("text"), str) and len(part["text"]) > limit:
        part["text"] = cut_text(part["text"], limit, tail_share)
        part["truncated"] = True


def _cap_traceback(error: ErrorView | None, limit: int) -> None:
    traceback = error.get("traceback") if error else None
    if error and isinstance(traceback, str) and len(traceback) > limit:
        error["traceback"] = cut_text(traceback, limit, 0.75)
        error["truncated"] = True


def attempt_payload(ref: RunRef, rel: str, budget: int) -> AttemptDetail:
    """An attempt's detail with its trajectory inlined (``trajectory.data``), cut to the budget."""
    detail = attempts.attempt_detail(ref, rel)
    _cap(detail.get("verifier_log"), LOG_CHARS)
    _cap(detail.get("patch"), PATCH_CHARS, 0.25)
    _cap_traceback(detail.get("error"), TRACEBACK_CHARS)
    manifest = detail.get("artifacts")
    if isinstance(manifest, dict) and isinstance(manifest.get("files"), list):
        manifest["files"] = manifest["files"][:200]
    detail["files"] = detail["files"][:200]
    calls = detail.get("model_calls")
    if calls and len(calls["rows"]) > CALL_ROWS:
        calls["rows"], calls["truncated"] = calls["rows"][:CALL_ROWS], True
    traj = detail.get("trajectory")
    if traj:
        data = read_json(ref.path / traj["path"])
        if data is None:
            text = read_text(ref.path / traj["path"], budget)
            data = text["text"] if text else None
        spare = max(budget // 4, budget - len(json.dumps(detail, default=str)))
        traj["data"], traj["trimmed"] = shrink(data, spare)
    return detail


def _pack(obj: Any) -> str:
    raw = json.dumps(obj, separators=(",", ":"), default=str).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, 9, mtime=0)).decode("ascii")


def _analysis(ref: RunRef, out: Path) -> ReportAnalysis:
    found: dict[str, str] = {}
    for name in (ANALYSIS_MD, ANALYSIS_JSON):
        path = ref.path / name
        if path.is_file():
            found[name] = os.path.relpath(path, out.resolve().parent).replace(os.sep, "/")
    md = read_text(ref.path / ANALYSIS_MD, ANALYSIS_CHARS)
    return {"links": found, "md": md["text"] if md else None}


def _run_part(ref: RunRef, max_attempt_kb: int) -> RunPart:
    tasks = runs.task_rows(ref)
    packed: dict[str, str] = {}
    for task_dir in dict.fromkeys(t["dir"] for t in tasks):
        for att in attempts.task_attempts(ref, task_dir):
            packed[att["path"]] = _pack(attempt_payload(ref, att["path"], max_attempt_kb * 1024))
    return {"run": runs.run_detail(ref), "tasks": tasks, "attempts": packed}


def _comparisons(refs: list[RunRef]) -> dict[str, ComparePage]:
    """Every ordered pair's Compare page (``agentcompass compare``'s numbers), keyed ``"A|B"``."""
    from . import compare

    rows = [runs.run_row(r) for r in refs]
    kinds = {row.get("benchmark") for row in rows}
    if len(kinds) > 1:
        listing = ", ".join(f"{r.key} ({row.get('benchmark')})" for r, row in zip(refs, rows, strict=True))
        raise ConfigError(f"runs of different benchmarks cannot be compared in one report: {listing}")
    return {f"{a.key}|{b.key}": compare.compare(a, b) for a in refs for b in refs if a is not b}


def build(run_dirs: list[str | Path], out: Path, max_attempt_kb: int = DEFAULT_ATTEMPT_KB) -> tuple[str, ReportCounts]:
    """The page of one run (its Run and Attempt views) or of several (also the Runs list and every pair's
    Compare page, with the flipped tasks linked to their attempts)."""
    refs = [_run_ref(d) for d in run_dirs]
    if len({r.key for r in refs}) < len(refs):
        raise ConfigError("report: the same run directory is given twice")
    parts = [_run_part(ref, max_attempt_kb) for ref in refs]
    first = parts[0]
    boot = {
        "mode": "report",
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "runs": [runs.run_row(ref) for ref in refs],
        "run": first["run"],
        "tasks": first["tasks"],
        "attempts": first["attempts"],
        "analysis": _analysis(refs[0], out),
    }
    if len(refs) > 1:
        pairs = zip(refs, parts, strict=True)
        boot["more"] = {ref.key: {**part, "analysis": _analysis(ref, out)} for ref, part in pairs}
        boot["compare"] = _comparisons(refs)
    names = [(p["run"]["run"].get("run_name") or "", p["run"]["run"].get("run_id") or "") for p in parts]
    title = " vs ".join(f"{name} / {run_id}" for name, run_id in names)
    html = page.render(boot, title=f"agentcompass report: {title}", csp=page.CSP_REPORT)
    n_tasks = sum(len(p["tasks"]) for p in parts)
    return html, {"tasks": n_tasks, "attempts": sum(len(p["attempts"]) for p in parts), "runs": len(refs)}


def write_report(
    run_dir: str | Path | list[str | Path], out: str | Path = "report.html", max_attempt_kb: int = DEFAULT_ATTEMPT_KB
) -> ReportWritten:
    """Write the report of one run directory or several; returns ``{path, bytes, tasks, attempts, runs}``."""
    if max_attempt_kb < 4:
        raise ConfigError(f"--max-attempt-kb {max_attempt_kb}: must be at least 4")
    target = Path(out).expanduser()
    if target.is_dir():
        raise ConfigError(f"-o {str(out)!r} is a directory; give a file name such as report.html")
    html, counts = build(list(run_dir) if isinstance(run_dir, list | tuple) else [run_dir], target, max_attempt_kb)
    data = html.encode("utf-8")
    write_atomic(target, data)
    return {"path": str(target), "bytes": len(data), **counts}
