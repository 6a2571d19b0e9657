"""Read a run directory: the task rows (results.jsonl) and every attempt's result.json."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from agentcompass._orchestrator.record import (
    RESULTS_FILE,
    AgentRecord,
    ResultRow,
    RunStore,
    UsageRecord,
    attempt_number,
    row_sample,
)
from agentcompass.errors import ConfigError
from agentcompass.interfaces import AttemptStatus

from .shapes import AttemptFile

OUTCOMES = ("resolved", "unresolved", "verifier_error", "infra_error", "model_error", "agent_error", "config_error")


@dataclass
class TaskRecord:
    """One sample of a task: its final row and all its attempts (result.json contents, oldest first)."""

    task_id: str
    row: ResultRow
    attempts: list[AttemptFile] = field(default_factory=list)
    sample: int = 1

    @property
    def final(self) -> AttemptFile:
        return self.attempts[-1] if self.attempts else _attempt_from_row(self.row)


def outcome_of(att: AttemptFile) -> str:
    """resolved | unresolved | verifier_error | infra_error | model_error | agent_error | config_error."""
    if att.get("status") == AttemptStatus.COMPLETED:
        resolved = att.get("resolved")
        if resolved is None:
            resolved = (att.get("reward") or 0) >= 1
        return "resolved" if resolved else "unresolved"
    cls = att.get("error_class") or "agent"
    return f"{cls}_error" if f"{cls}_error" in OUTCOMES else "agent_error"


def _attempt_from_row(row: ResultRow) -> AttemptFile:
    """An attempt-like dict from a results.jsonl row (when the attempt's result.json is missing)."""
    err = row.get("error")
    tokens = row.get("tokens")
    usage: UsageRecord = {}
    if tokens:
        usage["input"], usage["output"], usage["cached"] = tokens["input"], tokens["output"], tokens["cached"]
    usage["cost_usd"] = row.get("cost_usd", 0.0)
    agent: AgentRecord = {"limit_hit": row.get("limit_hit"), "n_turns": row.get("n_turns", 0)}
    exit_status = row.get("exit_status")
    if exit_status is not None:  # as absent: every reader gets None
        agent["exit_status"] = exit_status
    return {
        "task_id": row.get("task_id"),
        "attempt": row.get("attempts"),
        "status": row.get("status"),
        "reward": row.get("reward"),
        "resolved": row.get("resolved"),
        "error_type": err.get("type") if err else None,
        "error": err.get("message") if err else None,
        "error_class": row.get("error_class"),
        "duration_s": row.get("duration_s", 0.0),
        "attempt_dir": row.get("attempt_dir"),
        "usage": usage,
        "agent": agent,
    }


def _attempts(store: RunStore, row: ResultRow) -> list[AttemptFile]:
    """The task's attempts (result.json contents, oldest first), from its folder under the run directory (so a
    moved run directory works too); attempts after the row's final one are stale and left out."""
    final = attempt_number(row["attempt_dir"]) if row.get("attempt_dir") else None
    found: list[AttemptFile] = []
    for record in store.attempt_records(str(row["task_id"]), row_sample(row)):
        read = record.read_result()
        if read is not None and (final is None or record.n <= final):
            data = cast(AttemptFile, read)  # the file AttemptOutcome.record() wrote: the one place it is parsed
            data["attempt_dir"] = str(record.dir)
            found.append(data)
    return found


def load_run(run_dir: str | Path) -> tuple[Path, list[TaskRecord]]:
    """The samples of a run directory's tasks, sorted by (task id, sample). A directory without results.jsonl is
    a ConfigError."""
    run_dir = Path(run_dir).expanduser().resolve()
    store = RunStore.at(run_dir)
    if not store.results_path.is_file():
        raise ConfigError(
            f"{run_dir} is not a run directory: it has no {RESULTS_FILE} (expected <results_dir>/<run_name>/<run_id>/)"
        )
    rows = store.finished_rows(strict=True)  # the last line of a (task, sample) wins
    records = [TaskRecord(tid, row, _attempts(store, row), sample) for (tid, sample), row in sorted(rows.items())]
    for rec in records:
        for att in rec.attempts:
            att.setdefault("task_id", rec.task_id)
            att["outcome"] = outcome_of(att)
    return run_dir, records
