"""The typed shape of what ``run_evaluation`` returns (and ``summary.json`` holds), and of ``run.json``.

Plain dicts at run time, so ``result["metrics"]["mean_reward"]`` keeps working and the value serialises as it is;
``TypedDict``\\ s for type checkers and IDEs, and through pydantic a validator and a JSON Schema (:mod:`.schema`).
Every shape is open: a key added later, or by a feature (``analysis``), a harness (``harness_info``) or a
benchmark (its ``paths``), is kept and allowed. The field names are the user-facing contract (docs/results.md).
"""

from __future__ import annotations

from typing import NotRequired

from pydantic import with_config
from typing_extensions import TypedDict

from agentcompass.interfaces import AttemptStatus, RunStatus

from .records import OPEN, ErrorInfo, IntegritySummary, Interval, JsonObject, ReviewReport, Tokens, UsageRecord


@with_config(OPEN)
class ModelInfo(TypedDict):
    id: str | None
    protocol: str | list[str] | None
    base_url: str | None  # never the key


@with_config(OPEN)
class Session(TypedDict):
    """One session of a run (the first, then one per ``--reuse``)."""

    started_at: str
    finished_at: str | None  # None while it runs
    duration_s: float
    samples_run: int
    status: str


@with_config(OPEN)
class RunMetadata(TypedDict):
    schema_version: NotRequired[int]  # of the record's schema (``agentcompass schema``); absent before version 1
    run_id: str
    run_name: str
    request: str
    status: RunStatus  # completed | failed | timeout | cancelled | stopped_budget
    started_at: str  # ISO 8601, UTC: the first session's start
    duration_s: float  # every session's
    sessions: list[Session]
    finished_at: str
    benchmark: str
    harness: str
    model: ModelInfo
    environment: str
    agentcompass_version: str
    config: JsonObject  # the resolved request, redacted
    harness_info: NotRequired[JsonObject]  # what the harness is made of, when it says
    prices: NotRequired[JsonObject]  # where the model's price came from
    budget: NotRequired[list[JsonObject]]  # each active budget's limits and spending


@with_config(OPEN)
class Durations(TypedDict):
    p50: float
    p90: float
    max: float


@with_config(OPEN)
class ErrorsByClass(TypedDict):
    infra: int
    model: int
    agent: int
    verifier: int
    config: int


@with_config(OPEN)
class IntegrityVerdicts(TypedDict):
    clean: int
    suspect: int
    hack: int
    unscanned: int


@with_config(OPEN)
class RunMetrics(TypedDict):
    """The run's metrics, every one from samples (docs/results.md#metrics)."""

    n_tasks: int
    n_samples: int
    samples_per_task: int
    n_tries: int
    n_completed: int
    n_errors: int
    errors_by_class: ErrorsByClass
    n_retries: int
    mean_reward: float
    mean_reward_denominator: int
    mean_reward_stderr: float | None
    mean_reward_valid: float | None
    n_valid_rewards: int
    pass_rate: float
    tokens: Tokens
    cost_usd: float | None
    cache_hits: int
    cost_saved_usd: float | None
    usage_by_role: NotRequired[dict[str, UsageRecord]]
    duration_s: Durations
    mean_reward_ci: Interval
    pass_rate_ci: Interval
    mean_reward_valid_ci: Interval
    resolved_rate_ci: NotRequired[Interval]
    pass_at_k: NotRequired[dict[str, float]]  # with several samples per task, for every k
    pass_at_k_ci: NotRequired[dict[str, Interval]]
    pass_hat_k: NotRequired[dict[str, float]]
    pass_hat_k_ci: NotRequired[dict[str, Interval]]
    resolved: NotRequired[int]  # benchmarks with a resolved notion
    resolved_rate: NotRequired[float]
    integrity_flagged: NotRequired[int]  # with the integrity scan
    integrity_verdicts: NotRequired[IntegrityVerdicts]
    resolved_rate_clean: NotRequired[float]
    resolved_rate_clean_ci: NotRequired[Interval]
    integrity_review: NotRequired[ReviewReport]  # the LLM review's counts, usage and cost (docs/integrity.md)
    benchmark_figures: NotRequired[JsonObject]  # a benchmark's own figures with intervals (summary_figures)
    analysis_cost_usd: NotRequired[float | None]  # with the post-run analysis: its judge's cost and tokens
    analysis_tokens: NotRequired[Tokens]
    total_cost_usd: NotRequired[float | None]


@with_config(OPEN)
class Outcome(TypedDict):
    """What a task's summary row and each of its samples say of the outcome."""

    status: AttemptStatus
    reward: float | None
    rewards: dict[str, float]
    resolved: bool | None
    attempts: int
    error: ErrorInfo | None
    duration_s: float
    tokens: Tokens
    cost_usd: float | None
    cache_hits: int
    cost_saved_usd: float | None
    exit_status: str | None
    limit_hit: str | None
    integrity: IntegritySummary | None


@with_config(OPEN)
class SampleEntry(Outcome):
    """One sample of a task's summary row."""

    sample: int
    attempt_dir: str


@with_config(OPEN)
class TaskSummary(Outcome):
    """One task's row: with one sample that sample's fields, with several the task's mean and sums."""

    task_id: str
    n_samples: int
    mean_reward: float
    n_passed: int
    samples: list[SampleEntry]


@with_config(OPEN)
class NotRunSample(TypedDict):
    sample: int
    status: str  # not_started | cancelled


@with_config(OPEN)
class NotRunTask(TypedDict):
    """A task with samples the run did not finish, and why."""

    task_id: str
    status: str  # not_started | cancelled
    samples: list[NotRunSample]
    reason: str


@with_config(OPEN)
class RunSummary(TypedDict):
    outcomes: dict[str, int]  # passed | failed | error:<class> -> samples
    tasks: list[TaskSummary]  # one row per task, sorted by id
    not_run: list[NotRunTask]


@with_config(OPEN)
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


@with_config(OPEN)
class RunResult(TypedDict):
    """``{metadata, metrics, summary, paths}``: what ``run_evaluation`` returns and ``summary.json`` holds."""

    metadata: RunMetadata
    metrics: RunMetrics
    summary: RunSummary
    paths: RunPaths


@with_config(OPEN)
class RunRecord(TypedDict):
    """``run.json``: the run's status and counts, rewritten as samples finish and at the end."""

    run_id: str
    run_name: str
    request: str
    status: RunStatus
    started_at: str
    duration_s: float
    sessions: list[Session]
    updated_at: str
    n_tasks: int
    n_samples: int
    n_finished: int
    n_errors: int
    agentcompass_version: str
    counts: ErrorsByClass | None  # errors by class
    budget: NotRequired[list[JsonObject]]


class MetadataExtras(TypedDict, total=False):
    harness_info: JsonObject  # what the harness is made of, when it says
    prices: JsonObject  # where the price of the request's model came from


class BudgetRecord(TypedDict, total=False):
    budget: list[JsonObject]  # each active budget's limits, spending and whether it was reached


class Fingerprint(TypedDict):
    """``tasks.json``: what a reuse must repeat."""

    components: dict[str, JsonObject]  # the component configs, redacted
    task_ids: list[str]
