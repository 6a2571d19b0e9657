"""A benchmark's task audit: the oracle ``repeats`` times and nop once on every task, one orchestration (one pool
of attempt slots, the usual retries for infrastructure errors), then the tasks whose oracle fails in every
repeat (``oracle_fails``), passes in some only (``oracle_flaky``), or that nop passes (``nop_passes``), each with
its verifier output. A sample passes when its reward is at least 1 (the ``pass_rate`` rule).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcompass._orchestrator.record import ResultRow

PROBLEMS = ("oracle_fails", "oracle_flaky", "nop_passes")
VERIFIER_TAIL_LINES = 20


@dataclass
class AuditFinding:
    task_id: str
    problem: str  # one of PROBLEMS
    oracle_passes: int
    repeats: int
    rewards: list[float | None]  # the samples' rewards (oracle, or nop's one sample)
    errors: list[str]  # "<ErrorType>: <message>" of samples that ended in an error
    verifier_output: str  # the last lines of the verifier log of the first failing (or passing nop) sample
    attempt_dirs: list[str] = field(default_factory=list)


@dataclass
class AuditReport:
    benchmark: str
    repeats: int
    n_tasks: int
    findings: list[AuditFinding]
    runs: dict[str, str]  # oracle / nop -> run directory
    status: str  # the orchestration's status

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _rows(run_dir: str) -> dict[str, list[ResultRow]]:
    """results.jsonl of a run: task id -> its samples' rows, in sample order."""
    by_task: dict[str, list[ResultRow]] = {}
    path = Path(run_dir) / "results.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else []:
        row = json.loads(line)
        by_task.setdefault(row["task_id"], []).append(row)
    for rows in by_task.values():
        rows.sort(key=lambda r: int(r.get("sample") or 1))
    return by_task


def _passed(row: ResultRow) -> bool:
    return row.get("error") is None and (row.get("reward") or 0.0) >= 1.0


def _verifier_tail(row: ResultRow) -> str:
    log = Path(row.get("attempt_dir") or "") / "verifier.log"
    if not log.is_file():
        return ""
    lines = log.read_text(encoding="utf-8", errors="replace").rstrip("\n").splitlines()
    return "\n".join(lines[-VERIFIER_TAIL_LINES:])


def _finding(task_id: str, problem: str, rows: list[ResultRow], repeats: int, shown: ResultRow) -> AuditFinding:
    return AuditFinding(
        task_id=task_id,
        problem=problem,
        oracle_passes=sum(_passed(r) for r in rows) if problem != "nop_passes" else 0,
        repeats=repeats if problem != "nop_passes" else 1,
        rewards=[r.get("reward") for r in rows],
        errors=[str(r["error"]) for r in rows if r.get("error")],
        verifier_output=_verifier_tail(shown),
        attempt_dirs=[str(r.get("attempt_dir") or "") for r in rows],
    )


def classify(oracle: dict[str, list[ResultRow]], nop: dict[str, list[ResultRow]], repeats: int) -> list[AuditFinding]:
    """The findings of an audit's two runs (a task may have two: a flaky oracle and a nop pass)."""
    findings = []
    for task_id in sorted(set(oracle) | set(nop)):
        rows = oracle.get(task_id, [])
        passes = sum(_passed(r) for r in rows)
        failing = [r for r in rows if not _passed(r)]
        if rows and passes == 0:
            findings.append(_finding(task_id, "oracle_fails", rows, repeats, failing[0]))
        elif rows and passes < len(rows):
            findings.append(_finding(task_id, "oracle_flaky", rows, repeats, failing[0]))
        nop_rows = nop.get(task_id, [])
        if nop_rows and _passed(nop_rows[0]):
            findings.append(_finding(task_id, "nop_passes", nop_rows, repeats, nop_rows[0]))
    return findings


def _spec(
    benchmark: str,
    repeats: int,
    environment: str | None,
    benchmark_params: dict[str, Any] | None,
    environment_params: dict[str, Any] | None,
    task_concurrency: int | None,
    max_retries: int | None,
) -> dict[str, Any]:
    """The audit's orchestration: oracle x ``repeats`` and nop x 1, sharing one pool."""
    defaults: dict[str, Any] = {"benchmark": {"id": benchmark, **(benchmark_params or {})}, "model": {"id": "none"}}
    if environment or environment_params:
        defaults["environment"] = {"id": environment or "local", **(environment_params or {})}
    if max_retries is not None:
        defaults["execution"] = {"max_retries": max_retries}
    spec: dict[str, Any] = {
        "name": f"audit-{benchmark}",
        "defaults": defaults,
        "requests": [
            {"name": f"{benchmark}__audit-oracle", "harness": {"id": "oracle"}, "execution": {"n_attempts": repeats}},
            {"name": f"{benchmark}__audit-nop", "harness": {"id": "nop"}},
        ],
    }
    if task_concurrency is not None:  # else the schema's default
        spec["task_concurrency"] = task_concurrency
    return spec


def audit(
    benchmark: str,
    *,
    repeats: int = 3,
    environment: str | None = None,
    benchmark_params: dict[str, Any] | None = None,
    environment_params: dict[str, Any] | None = None,
    task_concurrency: int | None = None,
    max_retries: int | None = None,
    results_dir: str | Path | None = None,
    data_dir: str | Path | None = None,
    progress: str = "none",
    log_level: str = "WARNING",
) -> AuditReport:
    """Run the audit of ``benchmark`` and return its report (also written as ``audit.json`` beside the runs)."""
    from agentcompass.errors import ConfigError

    from .catalogue import remember_count
    from .launching import launch

    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ConfigError(f"audit: repeats={repeats!r} must be an integer >= 1")
    spec = _spec(benchmark, repeats, environment, benchmark_params, environment_params, task_concurrency, max_retries)
    kw: dict[str, Any] = {"progress": progress, "log_level": log_level}
    kw |= {k: str(v) for k, v in (("results_dir", results_dir), ("data_dir", data_dir)) if v is not None}
    result = launch(spec, **kw)
    runs, by_run = {}, {}
    for key, request in zip(("oracle", "nop"), spec["requests"], strict=True):
        outcome = result.requests[request["name"]]
        if outcome.result is None:
            raise ConfigError(f"audit of {benchmark!r}: the {key} run did not finish: {outcome.error}")
        runs[key] = outcome.result["paths"]["run_dir"]
        by_run[key] = _rows(runs[key])
    n_tasks = len(set(by_run["oracle"]) | set(by_run["nop"]))
    if not benchmark_params:
        remember_count(benchmark, n_tasks, data_dir)
    findings = classify(by_run["oracle"], by_run["nop"], repeats)
    report = AuditReport(benchmark, repeats, n_tasks, findings, runs, str(result.status))
    (Path(runs["oracle"]) / "audit.json").write_text(json.dumps(report.to_dict(), indent=1) + "\n", encoding="utf-8")
    return report


def format_audit(report: AuditReport) -> str:
    """The report for people: one line per finding, then each finding's verifier output."""
    lines = [f"audit of {report.benchmark}: {report.n_tasks} tasks, oracle x{report.repeats}, nop x1"]
    if not report.findings:
        lines.append("every task: the oracle passes in every repeat and nop fails")
    width = max([len(f.task_id) for f in report.findings] + [4])
    lines.append(f"{'task':<{width}}  {'problem':<12}  oracle passes")
    for f in report.findings:
        passes = f"{f.oracle_passes}/{f.repeats}" if f.problem != "nop_passes" else "-"
        lines.append(f"{f.task_id:<{width}}  {f.problem:<12}  {passes}")
    for f in report.findings:
        lines.append(f"\n--- {f.task_id} ({f.problem}): verifier output")
        lines.append("\n".join(f.errors) if f.errors and not f.verifier_output else f.verifier_output or "(none)")
    lines.append(f"\nruns: oracle {report.runs['oracle']}\n      nop    {report.runs['nop']}")
    return "\n".join(lines)
