"""One attempt as a Harbor trial directory: ``config.json`` (TrialConfig), ``result.json`` (TrialResult),
``agent/`` (trajectory and agent logs), ``verifier/`` (reward file, test output), ``exception.txt``.

The fields are those of Harbor 0.26's ``TrialConfig`` / ``TrialResult`` models. Timestamps are rebuilt from the
attempt's phase durations, ending when its ``result.json`` was written. An attempt's error becomes the trial's
``exception_info`` with a ``policy_override`` stating what agentcompass did (verified or not, reward counted or
not, retryable or not), so Harbor's ``reward_valid`` equals agentcompass's ``reward_valid``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from agentcompass._orchestrator.record import ARTIFACTS_DIR, RESULT_FILE, VERIFIER_LOG
from agentcompass.kit import write_json

from .harbor_shapes import AgentResult, ExceptionInfo, ModelInfo, Timings, TrialConfig, TrialResult

NAMESPACE = uuid.UUID("5b1b7c64-6a43-4d4e-9a52-1f0e0d1e2a61")  # uuid5 namespace of exported ids


@dataclass
class RunInfo:
    """What every trial of a run shares."""

    run_id: str
    job_id: str
    job_dir: Path
    harness: str
    model: str | None
    provider: str | list[str] | None  # the model's provider, else its protocol(s)
    environment: str
    source: str
    version: str
    keep: bool


def stable_id(*parts: str) -> str:
    return str(uuid.uuid5(NAMESPACE, "\0".join(parts)))


def iso(ts: datetime) -> str:
    return ts.astimezone(UTC).isoformat()


def dir_checksum(path: Path) -> str:
    """sha256 over the relative paths and contents of every file under ``path`` ("" when it does not exist)."""
    if not path.is_dir():
        return ""
    h = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(str(file.relative_to(path)).encode() + b"\0" + file.read_bytes() + b"\0")
    return h.hexdigest()


_PHASES: tuple[tuple[Literal["environment_setup", "agent_execution", "verifier"], tuple[str, ...]], ...] = (
    ("environment_setup", ("env_open", "setup")),
    ("agent_execution", ("agent",)),
    ("verifier", ("verify",)),
)  # Harbor's phase -> the attempt's phases it spans


def _timings(attempt: dict[str, Any], finished: datetime) -> Timings:
    phases = attempt.get("phases") or {}
    start = finished - timedelta(seconds=float(attempt.get("duration_s") or 0.0))
    out: Timings = {"started_at": iso(start), "finished_at": iso(finished)}
    clock = start
    for key, names in _PHASES:
        spent = sum(float(phases.get(n) or 0.0) for n in names)
        if any(n in phases for n in names):
            out[key] = {"started_at": iso(clock), "finished_at": iso(clock + timedelta(seconds=spent))}
        clock += timedelta(seconds=spent)
    return out


def trial_config(info: RunInfo, task_path: Path, trial_name: str) -> TrialConfig:
    return {
        "task": {"path": str(task_path)},
        "trial_name": trial_name,
        "trials_dir": str(info.job_dir),
        "agent": {"name": info.harness, "model_name": info.model},
        "environment": {"type": "docker" if info.environment == "docker" else None, "delete": not info.keep},
        "job_id": info.job_id,
    }


def _agent_result(attempt: dict[str, Any]) -> AgentResult:
    usage, agent = attempt.get("usage") or {}, attempt.get("agent") or {}
    return {
        "n_input_tokens": usage.get("input", 0),
        "n_cache_tokens": usage.get("cached", 0),
        "n_output_tokens": usage.get("output", 0),
        "cost_usd": usage.get("cost_usd", 0.0),
        "metadata": {
            k: agent.get(k) for k in ("exit_status", "n_turns", "limit_hit", "submission") if agent.get(k) is not None
        },
    }


def _exception(attempt: dict[str, Any], attempt_dir: Path, finished: datetime) -> ExceptionInfo | None:
    if attempt.get("status") != "error":
        return None
    error = attempt.get("error") or ""
    prefix = f"{attempt.get('error_type')}: "
    trace = attempt_dir / "error.txt"
    verified = "verify" in (attempt.get("phases") or {})
    return {
        "exception_type": attempt.get("error_type") or "Error",
        "exception_message": error[len(prefix) :] if error.startswith(prefix) else error,
        "exception_traceback": trace.read_text(encoding="utf-8", errors="replace") if trace.is_file() else "",
        "occurred_at": iso(finished),
        "policy_override": {
            "should_retry": bool(attempt.get("retryable")),
            "should_grade": verified,
            "has_valid_reward": bool(attempt.get("reward_valid")),
        },
    }


def trial_result(
    info: RunInfo, attempt: dict[str, Any], attempt_dir: Path, task_path: Path, trial_dir: Path
) -> TrialResult:
    finished = datetime.fromtimestamp((attempt_dir / RESULT_FILE).stat().st_mtime, UTC)
    task_id, name = attempt["task_id"], trial_dir.name
    model_info: ModelInfo | None = {"name": info.model, "provider": info.provider} if info.model else None
    rewards = attempt.get("rewards") or {}
    return {
        "schema_version": 1,
        "id": stable_id(info.run_id, task_id, str(attempt.get("attempt"))),
        "task_name": task_id,
        "trial_name": name,
        "trial_uri": trial_dir.resolve().as_uri(),
        "task_id": {"path": str(task_path)},
        "source": info.source,
        "task_checksum": dir_checksum(task_path),
        "config": trial_config(info, task_path, name),
        "agent_info": {"name": info.harness, "version": info.version, "model_info": model_info},
        "agent_result": _agent_result(attempt),
        "verifier_result": {"rewards": dict(rewards)} if rewards else None,
        "exception_info": _exception(attempt, attempt_dir, finished),
        **_timings(attempt, finished),
    }


# --------------------------------------------------------------------------- files


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        shutil.copytree(src, dst, dirs_exist_ok=True, symlinks=True)
    else:
        shutil.copy2(src, dst)


def _agent_files(attempt: dict[str, Any], attempt_dir: Path, agent_dir: Path, harness: str) -> None:
    saved = attempt_dir / ARTIFACTS_DIR / "logs" / "agent"
    if saved.is_dir():  # the container's own /logs/agent, when the run saved it
        _copy(saved, agent_dir)
    trajectory = (attempt.get("agent") or {}).get("trajectory_path")
    for path in sorted(attempt_dir.glob("*traj*.json")) + ([Path(trajectory)] if trajectory else []):
        if path.is_file():
            _copy(path, agent_dir / path.name)
    log = attempt_dir / "agent.log"
    if log.is_file():
        _copy(log, agent_dir / ("oracle.txt" if harness == "oracle" else "agent.log"))


def _verifier_files(attempt: dict[str, Any], attempt_dir: Path, verifier_dir: Path) -> None:
    saved = attempt_dir / ARTIFACTS_DIR / "logs" / "verifier"
    if saved.is_dir():  # the verifier's own files, when the run saved /logs/verifier
        _copy(saved, verifier_dir)
        return
    verifier_dir.mkdir(parents=True, exist_ok=True)
    log = attempt_dir / VERIFIER_LOG
    if log.is_file():
        _copy(log, verifier_dir / "test-stdout.txt")
    elif "verify" in (attempt.get("phases") or {}):  # the verifier ran and printed nothing
        (verifier_dir / "test-stdout.txt").write_text("", encoding="utf-8")
    rewards = attempt.get("rewards") or {}
    if set(rewards) == {"reward"}:
        (verifier_dir / "reward.txt").write_text(f"{rewards['reward']}\n", encoding="utf-8")
    elif rewards:
        (verifier_dir / "reward.json").write_text(json.dumps(rewards, indent=2) + "\n", encoding="utf-8")


def write_trial(
    info: RunInfo, attempt: dict[str, Any], attempt_dir: Path, task_path: Path, trial_dir: Path
) -> TrialResult:
    """Write one trial directory; returns its TrialResult document."""
    for sub in ("agent", "verifier", "artifacts"):
        (trial_dir / sub).mkdir(parents=True, exist_ok=True)
    _agent_files(attempt, attempt_dir, trial_dir / "agent", info.harness)
    _verifier_files(attempt, attempt_dir, trial_dir / "verifier")
    artifacts = attempt_dir / ARTIFACTS_DIR
    if artifacts.is_dir():
        _copy(artifacts, trial_dir / "artifacts")
    result = trial_result(info, attempt, attempt_dir, task_path, trial_dir)
    if (attempt_dir / "error.txt").is_file():
        _copy(attempt_dir / "error.txt", trial_dir / "exception.txt")
    write_json(trial_dir / "config.json", result["config"], indent=4)
    write_json(trial_dir / "result.json", result, indent=4)
    return result
