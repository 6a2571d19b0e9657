"""Post-run analysis of a run directory: ``analysis.json`` + ``analysis.md`` (see ``docs/analysis.md``).

Entry points: :func:`analyze_run` (any finished or partial run directory; used by ``agentcompass analyze``)
and :func:`attach_analysis` (after a run with ``enable_analysis``: also records the files in the result's
``paths`` and the judge's cost in ``metrics``, and rewrites ``summary.json``).
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentcompass._orchestrator.record import RunStore, UsageRecord
from agentcompass.errors import one_line
from agentcompass.interfaces import sum_cost

from .collect import TaskRecord, load_run
from .judge import TAXONOMY, build_judge, judge_attempts
from .params import AnalysisParams, parse_params
from .report import render
from .shapes import Analysis, JudgeLabel, JudgeReport, RunMeta
from .spread import figures, task_spread
from .stats import breakdown, distributions, error_groups, top_tasks

__all__ = ["TAXONOMY", "AnalysisParams", "analyze_run", "attach_analysis", "parse_params", "record_in_result"]
LOG = logging.getLogger("agentcompass.analysis")


def _run_meta(run_dir: Path) -> RunMeta:
    meta: RunMeta = {"run_dir": str(run_dir), "run_id": run_dir.name, "run_name": run_dir.parent.name}
    summary = RunStore.at(run_dir).read_summary()
    if summary is None:
        return meta
    md = summary.get("metadata") or {}
    model = md.get("model") or {}
    meta["run_id"], meta["run_name"], meta["status"] = md.get("run_id"), md.get("run_name"), md.get("status")
    meta["benchmark"], meta["harness"], meta["environment"] = (
        md.get("benchmark"),
        md.get("harness"),
        md.get("environment"),
    )
    meta["model"] = model.get("id") if isinstance(model, dict) else model
    return meta


async def _judge(params: AnalysisParams, records: list[TaskRecord], logger: logging.Logger) -> JudgeReport:
    pool = [
        a for rec in records for a in (rec.attempts if params.judge_scope == "all" and rec.attempts else [rec.final])
    ]
    failed = [a for a in pool if a["outcome"] != "resolved"]
    chosen, rest = failed[: params.max_judge_attempts], failed[params.max_judge_attempts :]
    model = build_judge(params.model, logger)  # type: ignore[arg-type]
    try:
        labels = (
            await judge_attempts(model, chosen, concurrency=params.judge_concurrency, budget=params.judge_max_chars)
            if chosen
            else []
        )
    finally:
        await model.aclose()
    not_judged: list[JudgeLabel] = [
        {
            "task_id": a.get("task_id"),
            "attempt": a.get("attempt"),
            "outcome": a["outcome"],
            "category": None,
            "reason": None,
            "not_judged": True,
        }
        for a in rest
    ]
    labels += not_judged
    usage = model.usage.to_dict()
    return {
        "model": model.describe(),
        "scope": params.judge_scope,
        "taxonomy": TAXONOMY,
        "n_failed": len(failed),
        "n_judged": sum(1 for lb in labels if lb.get("category")),
        "n_not_judged": len(rest),
        "n_judge_errors": sum(1 for lb in labels if lb.get("judge_error")),
        "categories": dict(Counter(category for lb in labels if (category := lb.get("category")))),
        "usage": usage,
        "cost_usd": usage["cost_usd"],
        "labels": labels,
    }


async def analyze_run(
    run_dir: str | Path,
    params: dict[str, Any] | AnalysisParams | None = None,
    *,
    judge: bool = True,
    logger: logging.Logger | None = None,
) -> Analysis:
    """Analyse ``run_dir``, write ``analysis.json`` and ``analysis.md`` there, return the analysis.

    ``judge=False`` skips the judge even when ``params.model`` names one.
    """
    from agentcompass._config import redact_config as redact

    p = params if isinstance(params, AnalysisParams) else parse_params(params)
    folder, records = load_run(run_dir)
    analysis: Analysis = {
        "version": 1,
        "created_at": datetime.now(UTC).isoformat(),
        "run": _run_meta(folder),
        "params": redact(p.model_dump()),
        "breakdown": breakdown(records),
        "figures": figures(records),
        "task_spread": task_spread(records),
        "distributions": distributions(records),
        "error_groups": error_groups(records, p.top_n),
        "slowest": top_tasks(records, "duration_s", p.top_n),
        "costliest": top_tasks(records, "cost_usd", p.top_n),
        "judge": None,
    }
    if p.model is not None and judge:
        analysis["judge"] = await _judge(p, records, logger or LOG)
    scrubbed = _scrubbed(analysis)  # the same shape, registered secrets removed
    RunStore.at(folder).write_analysis(scrubbed, render(scrubbed))
    out: Analysis = scrubbed
    return out


def _scrubbed(obj: Any) -> Any:
    """Registered secrets removed from every string (keys are kept: token counts are not secrets)."""
    from agentcompass._config import scrub

    if isinstance(obj, dict):
        return {k: _scrubbed(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_scrubbed(v) for v in obj]
    return scrub(obj) if isinstance(obj, str) else obj


def record_in_result(result: dict[str, Any], analysis: Analysis) -> dict[str, Any]:
    """Add the analysis files to ``paths`` and its cost to ``metrics`` (in place; returns ``result``)."""
    result.setdefault("paths", {}).update(RunStore.at(analysis["run"]["run_dir"]).analysis_paths())
    judge = analysis.get("judge")
    usage: UsageRecord = (judge["usage"] if judge else None) or {}
    metrics = result.setdefault("metrics", {})
    judge_cost = usage.get("cost_usd", 0.0)
    metrics["analysis_cost_usd"] = None if judge_cost is None else round(float(judge_cost), 8)
    metrics["analysis_tokens"] = {
        "input": int(usage.get("input", 0)),
        "output": int(usage.get("output", 0)),
        "cached": int(usage.get("cached", 0)),
    }
    total = sum_cost([metrics.get("cost_usd", 0.0), metrics["analysis_cost_usd"]])
    metrics["total_cost_usd"] = None if total is None else round(total, 8)
    return result


def update_summary(run_dir: Path, analysis: Analysis) -> None:
    """Record the analysis in an existing ``summary.json`` (``agentcompass analyze``)."""
    store = RunStore.at(run_dir)
    summary = store.read_summary()
    if summary is not None:
        store.write_summary(record_in_result(summary, analysis))


async def attach_analysis(
    result: dict[str, Any], params: dict[str, Any] | None, *, judge: bool = True, logger: logging.Logger | None = None
) -> dict[str, Any]:
    """After a run: analyse it, record the analysis in ``result`` and ``summary.json``. Never raises."""
    log = logger or LOG
    run_dir = Path(result["paths"]["run_dir"])
    try:
        analysis = await analyze_run(run_dir, params, judge=judge, logger=log)
    except Exception as exc:  # the run's results stand even when its analysis fails
        log.error("post-run analysis failed: %s", one_line(exc))
        return result
    record_in_result(result, analysis)
    update_summary(run_dir, analysis)
    log.info("analysis written to %s", RunStore.at(run_dir).analysis_paths()["analysis_md"])
    return result
