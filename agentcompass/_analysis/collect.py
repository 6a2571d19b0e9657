"""Read a run directory: the task rows (results.jsonl) and every attempt's result.json."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcompass.errors import ConfigError

OUTCOMES = ("resolved", "unresolved", "verifier_error", "infra_error", "model_error", "agent_error",
            "config_error")
_ATTEMPT_DIR = re.compile(r"^attempt-(\d+)$")


@dataclass
class TaskRecord:
    """One task: its final row and all its attempts (result.json contents, oldest first)."""

    task_id: str
    row: dict[str, Any]
    attempts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def final(self) -> dict[str, Any]:
        return self.attempts[-1] if self.attempts else _attempt_from_row(self.row)


def outcome_of(att: dict[str, Any]) -> str:
    """resolved | unresolved | verifier_error | infra_error | model_error | agent_error | config_error."""
    if att.get("status") == "completed":
        resolved = att.get("resolved")
        if resolved is None:
            resolved = (att.get("reward") or 0) >= 1
        return "resolved" if resolved else "unresolved"
    cls = att.get("error_class") or "agent"
    return f"{cls}_error" if f"{cls}_error" in OUTCOMES else "agent_error"


def _attempt_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """An attempt-like dict from a results.jsonl row (when the attempt's result.json is missing)."""
    err = row.get("error") or {}
    tokens = row.get("tokens") or {}
    return {"task_id": row.get("task_id"), "attempt": row.get("attempts"), "status": row.get("status"),
            "reward": row.get("reward"), "resolved": row.get("resolved"), "error_type": err.get("type"),
            "error": err.get("message"), "error_class": row.get("error_class"),
            "duration_s": row.get("duration_s", 0.0), "attempt_dir": row.get("attempt_dir"),
            "usage": {**tokens, "cost_usd": row.get("cost_usd", 0.0)},
            "agent": {"exit_status": row.get("exit_status"), "limit_hit": row.get("limit_hit"),
                      "n_turns": row.get("n_turns", 0)}}


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _attempts(run_dir: Path, row: dict[str, Any]) -> list[dict[str, Any]]:
    from agentcompass._orchestrator.store import safe_name

    final_dir = Path(row["attempt_dir"]) if row.get("attempt_dir") else None
    folder = run_dir / "tasks" / safe_name(str(row["task_id"]))     # works for a moved run directory too
    found: list[tuple[int, dict[str, Any]]] = []
    for sub in folder.iterdir() if folder.is_dir() else []:
        m = _ATTEMPT_DIR.match(sub.name)
        data = _read_json(sub / "result.json") if m else None
        if isinstance(data, dict):
            data["attempt_dir"] = str(sub)
            found.append((int(m.group(1)), data))   # type: ignore[union-attr]
    found.sort(key=lambda x: x[0])
    m = _ATTEMPT_DIR.match(final_dir.name) if final_dir is not None else None
    if m:                                  # attempts after the recorded final one are stale
        found = [(n, a) for n, a in found if n <= int(m.group(1))]
    return [a for _, a in found]


def load_run(run_dir: str | Path) -> tuple[Path, list[TaskRecord]]:
    """The tasks of a run directory, sorted by id. A directory without results.jsonl is a ConfigError."""
    run_dir = Path(run_dir).expanduser().resolve()
    results = run_dir / "results.jsonl"
    if not results.is_file():
        raise ConfigError(f"{run_dir} is not a run directory: it has no results.jsonl "
                          f"(expected <results_dir>/<run_name>/<run_id>/)")
    rows: dict[str, dict[str, Any]] = {}
    for n, line in enumerate(results.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise ConfigError(f"{results}: line {n} is not valid JSON") from None
        rows[str(row["task_id"])] = row                # the last line of a task wins
    records = [TaskRecord(tid, row, _attempts(run_dir, row)) for tid, row in sorted(rows.items())]
    for rec in records:
        for att in rec.attempts:
            att.setdefault("task_id", rec.task_id)
            att["outcome"] = outcome_of(att)
    return run_dir, records
