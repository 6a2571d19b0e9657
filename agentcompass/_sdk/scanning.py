"""``scan_run``: the integrity scan of an existing run directory (docs/integrity.md), its optional LLM review, and
its printed form."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcompass._orchestrator.metrics import ScanReport
    from agentcompass._orchestrator.record import Review, ReviewReport


def scan_run(
    run_dir: str | Path,
    *,
    review: bool = False,
    judge: dict[str, Any] | str | None = None,
    review_params: dict[str, Any] | None = None,
) -> ScanReport:
    """Scan every sample's final attempt of ``run_dir`` for reward hacking and record the verdicts (each
    ``result.json``'s ``integrity``, ``results.jsonl``, ``summary.json``'s ``integrity_flagged`` and
    ``resolved_rate_clean``). Returns ``{run_dir, n_scanned, verdicts, flagged}``; each flagged attempt with its
    ``task_id``, ``sample``, ``attempt_dir``, ``verdict``, ``resolved`` and ``flags`` (detector, severity,
    reason and evidence).

    With ``review``, the ``judge`` model (a conf/model id, a model name, or a mapping with the fields of
    ``model``: id, base_url, api_key, api_protocol, params, prices) then reviews the flagged attempts and a
    sample of clean resolved ones (``review_params``: rubric, sample, seed, concurrency, max_chars); the report
    gets ``review`` (counts, usage, cost) and each reviewed attempt's ``integrity.review`` its verdict and
    reason."""
    from agentcompass._orchestrator.metrics import scan_run as scan
    from agentcompass.errors import ConfigError

    if review and not judge:
        raise ConfigError("review=True needs a judge model (CLI: --judge MODEL); none given")
    if review:
        from agentcompass._orchestrator.scheduling import load_rubric, parse_params

        load_rubric(parse_params(review_params).rubric)  # bad settings fail before the scan writes anything
    report = scan(run_dir)
    if review and judge:
        from agentcompass._orchestrator.metrics import reviewed
        from agentcompass._orchestrator.scheduling import review_run

        from .threads import run_sync

        client = _judge_client(judge)
        report["review"] = run_sync(lambda: review_run(run_dir, client, review_params))
        report["flagged"] = reviewed(report["flagged"])
    return report


def _judge_client(judge: dict[str, Any] | str) -> Any:
    """The judge's client: a conf/model id, a model name, or a mapping with the fields of ``model``."""
    from agentcompass._analysis.judge import build_judge
    from agentcompass.errors import ConfigError

    if isinstance(judge, dict) and not judge.get("id"):
        raise ConfigError("the judge model mapping needs an 'id' (a conf/model id or a model name)")
    client = build_judge(judge)
    if client is None:
        raise ConfigError(f"judge model {judge!r} builds no client")
    return client


def format_scan(report: ScanReport, *, max_flags: int = 3) -> str:
    """One line per flagged attempt and its first flags' evidence (and its review), then the counts."""
    lines = []
    for item in report["flagged"]:
        resolved = " resolved" if item.get("resolved") else ""
        lines.append(f"{item['verdict']:<8} {item['task_id']} sample {item['sample']}{resolved}: {item['attempt_dir']}")
        for f in item["flags"][:max_flags]:
            where = f"step {f['step']} of {f['source']}" if f.get("source") else "verifier record"
            evidence = f.get("command") or f.get("path") or f.get("excerpt") or ""
            lines.append(f"    {f['severity']:<7} {f['detector']}: {f['reason']} ({where}): {str(evidence)[:160]!r}")
        if len(item["flags"]) > max_flags:
            lines.append(f"    ... {len(item['flags']) - max_flags} more in result.json")
        if item.get("review"):
            lines.append("    " + _review_line(item["review"]))
    v = report["verdicts"]
    lines.append(
        f"scanned {report['n_scanned']} attempts: clean {v.get('clean', 0)}, suspect {v.get('suspect', 0)}, "
        f"hack {v.get('hack', 0)} ({report['run_dir']})"
    )
    if report.get("review"):
        lines.append(_review_total(report["review"]))
    return "\n".join(lines)


def _review_line(review: Review) -> str:
    if review.get("error"):
        return f"review  error: {review['error']}"
    return f"review  {review.get('verdict')}: {review.get('reason')}"


def _review_total(r: ReviewReport) -> str:
    v = r.get("verdicts") or {}
    usage = r.get("usage") or {}
    cost = "unknown" if r.get("cost_usd") is None else f"${r['cost_usd']:.4f}"
    return (
        f"reviewed {r.get('n_reviewed', 0)} of {r.get('n_selected', 0)} attempts with {r.get('model')}: clean "
        f"{v.get('clean', 0)}, suspect {v.get('suspect', 0)}, hack {v.get('hack', 0)}, errors {r.get('n_errors', 0)}; "
        f"{usage.get('calls', 0)} calls, {usage.get('input', 0)} + {usage.get('output', 0)} tokens, cost {cost}"
    )
