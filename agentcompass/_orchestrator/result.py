"""The typed shape of what ``run_evaluation`` returns (and ``summary.json`` holds): plain dicts at run time, so
``result["metrics"]["mean_reward"]`` keeps working and the value serialises as it is, and TypedDicts for type
checkers and IDEs. The field names are the user-facing contract (docs/results.md)."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from agentcompass.interfaces import RunStatus


class ModelInfo(TypedDict):
    id: str | None
    protocol: str | list[str] | None
    base_url: str | None  # never the key


class RunMetadata(TypedDict):
    run_id: str
    run_name: str
    request: str
    status: RunStatus  # completed | failed | timeout | cancelled
    started_at: str  # ISO 8601, UTC
    finished_at: str
    duration_s: float
    benchmark: str
    harness: str
    model: ModelInfo
    environment: str
    agentcompass_version: str
    config: dict[str, Any]  # the resolved request, redacted
    harness_info: NotRequired[dict[str, Any]]  # what the harness is made of, when it says


# The metrics section (n_tasks, n_samples, mean_reward, pass_at_k, ...; docs/results.md): its names are computed
# by the metrics module, which owns their types.
RunMetrics = dict[str, Any]


class RunSummary(TypedDict):
    outcomes: dict[str, int]  # passed | failed | error:<class> -> samples
    tasks: list[dict[str, Any]]  # one row per task (task_id, status, reward, samples, ...)


class RunPaths(TypedDict):
    run_dir: str
    config: str
    results: str  # results.jsonl
    summary: str  # summary.json
    log: str  # run.log (or log_file)
    tasks: str  # tasks/
    predictions: NotRequired[str]  # written by a benchmark (SWE-bench's preds.jsonl), or by a feature:
    report: NotRequired[str]
    analysis: NotRequired[str]
    analysis_md: NotRequired[str]


class RunResult(TypedDict):
    """``{metadata, metrics, summary, paths}``: what ``run_evaluation`` returns."""

    metadata: RunMetadata
    metrics: RunMetrics
    summary: RunSummary
    paths: RunPaths
