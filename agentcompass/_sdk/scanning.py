"""``scan_run``: the integrity scan of an existing run directory (docs/integrity.md), and its printed form."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcompass._orchestrator.integrity import ScanReport


def scan_run(run_dir: str | Path) -> ScanReport:
    """Scan every sample's final attempt of ``run_dir`` for reward hacking and record the verdicts (each
    ``result.json``'s ``integrity``, ``results.jsonl``, ``summary.json``'s ``integrity_flagged`` and
    ``resolved_rate_clean``). Returns ``{run_dir, n_scanned, verdicts, flagged}``; each flagged attempt with its
    ``task_id``, ``sample``, ``attempt_dir``, ``verdict``, ``resolved`` and ``flags`` (detector, severity,
    reason and evidence)."""
    from agentcompass._orchestrator.integrity import scan_run as scan

    return scan(run_dir)


def format_scan(report: dict[str, Any], *, max_flags: int = 3) -> str:
    """One line per flagged attempt and its first flags' evidence, then the counts."""
    lines = []
    for item in report["flagged"]:
        resolved = " resolved" if item.get("resolved") else ""
        lines.append(f"{item['verdict']:<8} {item['task_id']} sample {item['sample']}{resolved}: {item['attempt_dir']}")
        for f in item["flags"][:max_flags]:
            where = f"step {f['step']} of {f['source']}" if f.get("source") else "verifier record"
            evidence = f.get("command") or f.get("path") or f.get("excerpt") or ""
            lines.append(f"    {f['severity']:<7} {f['detector']}: {f['reason']} ({where}): {evidence[:160]!r}")
        if len(item["flags"]) > max_flags:
            lines.append(f"    ... {len(item['flags']) - max_flags} more in result.json")
    v = report["verdicts"]
    lines.append(
        f"scanned {report['n_scanned']} attempts: clean {v.get('clean', 0)}, suspect {v.get('suspect', 0)}, "
        f"hack {v.get('hack', 0)} ({report['run_dir']})"
    )
    return "\n".join(lines)
