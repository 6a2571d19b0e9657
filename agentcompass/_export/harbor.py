"""``agentcompass export harbor RUN_DIR OUT_DIR``: a run directory in Harbor 0.26's job layout.

``OUT_DIR/<run_name>__<run_id>/`` holds ``config.json`` (JobConfig, ``n_attempts`` = samples per task),
``result.json`` (JobResult with its ``stats``, written without ``trial_results`` as Harbor writes it) and one
trial directory per (task, sample) (:mod:`.harbor_trial`), named ``<task>__attempt-<n>`` after the sample's
final attempt (``<task>__sample-<j>__attempt-<n>`` when tasks have several samples). Earlier attempts of a
sample were retries: as in Harbor, where a retried trial's directory is replaced, they are not trials;
``stats.n_retries`` counts them. ``harbor view OUT_DIR`` lists the job.

Stats follow Harbor's rules: a trial's rewards count when it has a valid reward (``reward_valid``), the ``mean``
metric is over those rewards, errors are counted per exception type, and ``pass_at_k`` is Harbor's: over
trials with a valid reward only, when every such reward is a single 0 or 1, for k = 2, 4, 8, ... and 5, 10,
15, ... up to the fewest valid trials a task has (our own ``pass_at_k`` counts errors as failures and takes
every k).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentcompass._config import ExecutionConfig, RuntimeConfig, default_of
from agentcompass._export.harbor_trial import RunInfo, iso, stable_id, write_trial
from agentcompass._orchestrator.record import (
    RESULT_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    TASKS_DIR,
    ResultRow,
    RunMetadata,
)
from agentcompass.errors import ConfigError
from agentcompass.interfaces import sum_cost
from agentcompass.kit import slug

from .harbor_shapes import EvalStats, JobConfig, JobResult, JobStats, TaskRef, TrialResult


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot be read as JSON: {exc}") from None


def _rows(run_dir: Path) -> list[ResultRow]:
    results = run_dir / RESULTS_FILE
    if not results.is_file():
        raise ConfigError(f"RUN_DIR {str(run_dir)!r}: not an agentcompass run directory (no results.jsonl)")
    rows: dict[tuple[str, int], ResultRow] = {}
    for line in results.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            rows[(row["task_id"], int(row.get("sample") or 1))] = row  # a sample's last line is its outcome
    return [rows[k] for k in sorted(rows)]


def _moved(run_dir: Path, attempt_dir: Path) -> Path:
    """The attempt folder under ``run_dir`` when the run directory was moved since the row was written."""
    parts = attempt_dir.parts
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] == TASKS_DIR and run_dir.joinpath(*parts[i:]).is_dir():
            return run_dir.joinpath(*parts[i:])
    raise ConfigError(f"RUN_DIR: attempt folder {attempt_dir} is in neither its recorded place nor {run_dir}")


def _task_root(run_dir: Path, meta: RunMetadata) -> Path | None:
    config: dict[str, Any] = meta.get("config") or {}  # the resolved request
    bench = config.get("benchmark") or {}
    if bench.get("dataset_path"):
        return Path(bench["dataset_path"]).expanduser()
    source = run_dir / "dataset_source.json"
    if source.is_file():
        path = Path(_read_json(source).get("path", ""))
        if bench.get("subdir"):
            return path / bench["subdir"]
        return path / "tasks" if (path / "tasks").is_dir() else path
    if meta.get("benchmark") == "demo":
        return Path(__file__).resolve().parents[1] / "benchmarks" / "demo_tasks"
    return None


def _run_info(run_dir: Path, meta: RunMetadata, job_dir: Path) -> RunInfo:
    config: dict[str, Any] = meta.get("config") or {}  # the resolved request
    recorded = meta.get("model")
    model = recorded.get("id") if recorded else None
    provider = (config.get("model") or {}).get("provider") or (recorded.get("protocol") if recorded else None)
    return RunInfo(
        run_id=meta["run_id"],
        job_id=stable_id(meta["run_id"]),
        job_dir=job_dir,
        harness=meta.get("harness") or "unknown",
        model=None if model in (None, "none") else model,
        provider=provider,
        environment=meta.get("environment") or "",
        source=meta.get("benchmark") or "adhoc",
        version=meta.get("agentcompass_version") or "",
        keep=bool((config.get("execution") or {}).get("keep_environment")),
    )


def _metadata(run_dir: Path) -> RunMetadata:
    if (run_dir / SUMMARY_FILE).is_file():
        return _read_json(run_dir / SUMMARY_FILE)["metadata"]
    raise ConfigError(f"RUN_DIR {str(run_dir)!r}: the run has not finished (no summary.json)")


# --------------------------------------------------------------------------- stats


def evals_key(agent: str, model: str | None, dataset: str) -> str:
    return f"{agent}__{model}__{dataset}" if model else f"{agent}__{dataset}"


def _rewards(trial: TrialResult) -> dict[str, float]:
    verifier = trial.get("verifier_result")
    return verifier["rewards"] if verifier else {}


def reward_valid(trial: TrialResult) -> bool:
    rewards = _rewards(trial)
    exc = trial.get("exception_info")
    return bool(rewards) and (exc is None or bool(exc["policy_override"]["has_valid_reward"]))


def mean_metric(rewards: list[dict[str, float]]) -> dict[str, float]:
    """Harbor's ``mean`` over reward dicts: one key -> {"mean": ...}, several -> per key (missing counts 0)."""
    keys = sorted({k for r in rewards for k in r})
    if len(keys) <= 1:
        values = [next(iter(r.values()), 0) for r in rewards]
        return {"mean": sum(values) / len(values)}
    return {k: sum(r.get(k, 0) for r in rewards) / len(rewards) for k in keys}


def _eval_stats(trials: list[TrialResult]) -> EvalStats:
    reward_stats: dict[str, dict[float, list[str]]] = defaultdict(lambda: defaultdict(list))
    exception_stats: dict[str, list[str]] = defaultdict(list)
    valid = [t for t in trials if reward_valid(t)]
    for t in valid:
        for key, value in _rewards(t).items():
            reward_stats[key][value].append(t["trial_name"])
    for t in trials:
        if exc := t.get("exception_info"):
            exception_stats[exc["exception_type"]].append(t["trial_name"])
    rewards = [_rewards(t) for t in valid]
    return {
        "n_trials": len(valid),
        "n_errors": sum(1 for t in trials if t.get("exception_info")),
        "metrics": [mean_metric(rewards)] if rewards else [],
        "pass_at_k": harbor_pass_at_k(trials),
        "reward_stats": {k: {str(v): names for v, names in d.items()} for k, d in reward_stats.items()},
        "exception_stats": dict(exception_stats),
    }


def _harbor_k_values(max_k: int) -> list[int]:
    """Harbor's k values: powers of two from 2, and multiples of 5, up to ``max_k``."""
    ks = {2**i for i in range(1, max_k.bit_length() + 1) if 2**i <= max_k}
    return sorted(ks | set(range(5, max_k + 1, 5)))


def harbor_pass_at_k(trials: list[TrialResult]) -> dict[int, float]:
    """Harbor's ``pass_at_k`` of one eval: per task over its valid trials; none unless every valid trial has a
    single reward of 0 or 1."""
    import math

    successes: dict[str, list[int]] = defaultdict(list)
    for t in trials:
        if not reward_valid(t):
            continue
        rewards = _rewards(t)
        value = next(iter(rewards.values()))
        if len(rewards) != 1 or not isinstance(value, (int, float)) or value not in (0, 1):
            return {}
        successes[t["task_name"]].append(int(value))
    if not successes:
        return {}
    ks = _harbor_k_values(min(len(s) for s in successes.values()))
    return {
        k: sum(1.0 - math.comb(len(s) - sum(s), k) / math.comb(len(s), k) for s in successes.values()) / len(successes)
        for k in ks
    }


def job_stats(trials: list[TrialResult], n_retries: int) -> JobStats:
    groups: dict[str, list[TrialResult]] = defaultdict(list)
    for t in trials:
        info = t["agent_info"]
        model_info = info.get("model_info")
        groups[evals_key(info["name"], model_info["name"] if model_info else None, t.get("source") or "adhoc")].append(
            t
        )
    errored = [t for t in trials if t.get("exception_info")]
    return {
        "n_completed_trials": len(trials),
        "n_errored_trials": len(errored),
        "n_running_trials": 0,
        "n_pending_trials": 0,
        "n_retries": n_retries,
        "n_cancelled_trials": len(
            [t for t in errored if (exc := t["exception_info"]) and exc["exception_type"] == "CancelledError"]
        ),
        "evals": {key: _eval_stats(group) for key, group in groups.items()},
        "n_input_tokens": sum(t["agent_result"]["n_input_tokens"] for t in trials),
        "n_cache_tokens": sum(t["agent_result"]["n_cache_tokens"] for t in trials),
        "n_output_tokens": sum(t["agent_result"]["n_output_tokens"] for t in trials),
        "cost_usd": sum_cost(t["agent_result"]["cost_usd"] for t in trials),
    }


# --------------------------------------------------------------------------- the job


def job_name(meta: RunMetadata) -> str:
    return slug(f"{meta['run_name']}__{meta['run_id']}", default="")


def export_harbor(run_dir: str | Path, out_dir: str | Path) -> Path:
    """Write ``run_dir`` as a Harbor job under ``out_dir``; returns the job directory."""
    run_dir, out_dir = Path(run_dir).expanduser(), Path(out_dir).expanduser()
    rows = _rows(run_dir)
    meta = _metadata(run_dir)
    job_dir = out_dir / job_name(meta)
    if job_dir.exists():
        raise ConfigError(f"OUT_DIR: {job_dir} already exists; remove it or choose another OUT_DIR")
    job_dir.mkdir(parents=True)
    info, root = _run_info(run_dir, meta, job_dir), _task_root(run_dir, meta)
    per_task = max(Counter(r["task_id"] for r in rows).values(), default=1)
    trials: list[TrialResult] = []
    for row in rows:
        attempt_dir = Path(row["attempt_dir"])
        if not attempt_dir.is_dir():  # the run directory was moved: find it again
            attempt_dir = _moved(run_dir, attempt_dir)
        attempt = _read_json(attempt_dir / RESULT_FILE)
        task_path = (root / row["task_id"]) if root is not None else Path(row["task_id"])
        sample = f"__sample-{row.get('sample') or 1}" if per_task > 1 else ""
        trials.append(
            write_trial(
                info,
                attempt,
                attempt_dir,
                task_path,
                job_dir / f"{row['task_id']}{sample}__attempt-{attempt['attempt']}",
            )
        )
    tasks = list({json.dumps(t["config"]["task"], sort_keys=True): t["config"]["task"] for t in trials}.values())
    _write(job_dir / "config.json", _job_config(meta, info, out_dir, tasks, per_task))
    n_retries = sum(int(r.get("attempts", 1)) - 1 for r in rows)
    result: JobResult = {
        "schema_version": 1,
        "id": info.job_id,
        "started_at": meta.get("started_at") or iso(datetime.now(UTC)),
        "updated_at": meta.get("finished_at"),
        "finished_at": meta.get("finished_at"),
        "n_total_trials": len(trials),
        "stats": job_stats(trials, n_retries),
    }
    _write(job_dir / "result.json", result)
    return job_dir


def _job_config(meta: RunMetadata, info: RunInfo, out_dir: Path, tasks: list[TaskRef], n_attempts: int) -> JobConfig:
    config: dict[str, Any] = meta.get("config") or {}  # the resolved request
    execution, runtime = config.get("execution") or {}, config.get("runtime") or {}
    return {
        "schema_version": 1,
        "job_name": info.job_dir.name,
        "jobs_dir": str(out_dir),
        "n_attempts": n_attempts,
        "n_concurrent_trials": runtime.get("task_concurrency", default_of(RuntimeConfig, "task_concurrency")),
        "retry": {"max_retries": execution.get("max_retries", default_of(ExecutionConfig, "max_retries"))},
        "environment": {"type": "docker" if info.environment == "docker" else None, "delete": not info.keep},
        "agents": [{"name": info.harness, "model_name": info.model}],
        "tasks": tasks,
    }


def _write(path: Path, data: JobConfig | JobResult) -> None:
    path.write_text(json.dumps(data, indent=4) + "\n", encoding="utf-8")
