"""The shapes the post-run analysis reads and writes: an attempt's ``result.json`` as read back, and
``analysis.json``'s parts (docs/analysis.md). Static types only: the values stay plain dicts."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from agentcompass._orchestrator.record import (
    AgentRecord,
    GradeRecord,
    IntegrityRecord,
    Interval,
    JsonObject,
    UsageRecord,
)
from agentcompass.interfaces import AttemptStatus


class AttemptFile(TypedDict, total=False):
    """An attempt's ``result.json`` as read back (``AttemptOutcome.record()``, any age; or made up from its
    results.jsonl row when the file is missing), with the ``outcome`` the analysis gives it."""

    task_id: str | None
    attempt: int | None
    status: AttemptStatus | str | None
    reward: float | None
    rewards: dict[str, float]
    resolved: bool | None
    error_type: str | None
    error: str | None
    error_class: str | None
    retryable: bool
    duration_s: float
    queue_s: float
    phases: dict[str, float]
    usage: UsageRecord
    usage_by_role: dict[str, UsageRecord]
    agent: AgentRecord
    grade: GradeRecord
    environment: JsonObject
    resumed_from_checkpoint: bool
    artifacts: JsonObject | None
    reward_valid: bool
    attempt_dir: str | None
    sample: int
    node: JsonObject
    integrity: IntegrityRecord | None
    outcome: str  # resolved | unresolved | <class>_error (collect.outcome_of)


class RunMeta(TypedDict, total=False):
    """``analysis.json``'s ``run``: where the run is and what it ran (from its summary.json)."""

    run_dir: str
    run_id: str | None
    run_name: str | None
    status: str | None
    benchmark: str | None
    harness: str | None
    environment: str | None
    model: str | None


class FormatErrors(TypedDict):
    tasks: int
    total: int


class Breakdown(TypedDict):
    """``analysis.json``'s ``breakdown``: outcome counts of the samples and of all attempts."""

    n_tasks: int
    n_samples: int
    n_tries: int
    outcomes: dict[str, int]
    attempt_outcomes: dict[str, int]
    errors_by_class: dict[str, dict[str, int]]
    limits_hit: dict[str, int]
    agent_timeouts: int
    format_errors: FormatErrors
    exit_status: dict[str, int]
    tasks_retried: int


class Described(TypedDict):
    """A distribution in a few figures (stats.describe)."""

    n: int
    mean: float
    p50: float
    p90: float
    max: float


class Distributions(TypedDict):
    """``analysis.json``'s ``distributions``: per field its figures over tasks, overall and by outcome."""

    overall: dict[str, Described]
    by_outcome: dict[str, dict[str, Described]]


class ErrorGroup(TypedDict):
    """One of ``analysis.json``'s ``error_groups``: failed attempts whose normalized messages are alike."""

    pattern: str
    error_class: str
    count: int
    example: str
    tasks: list[str]
    n_tasks: NotRequired[int]


class TopTask(TypedDict, total=False):
    """A row of ``analysis.json``'s ``slowest`` / ``costliest`` (with the figure it is sorted by)."""

    task_id: str
    duration_s: float
    cost_usd: float
    outcome: str
    attempts: int
    turns: int


TaskSpreadRow = TypedDict(
    "TaskSpreadRow",
    {
        "task_id": str,
        "n": int,
        "passed": int,
        "pass_rate": float,
        "ci": list[float],
        "mean_reward": float,
        "var": float,
        "class": str,  # always | never | sometimes
    },
)
"""One task of ``task_spread``: its passes out of its samples, and its class."""


class TaskSpread(TypedDict):
    """``analysis.json``'s ``task_spread`` (several samples per task)."""

    samples_per_task: float
    counts: dict[str, int]
    between_task_share: float | None
    coin_flips: list[str]
    tasks: list[TaskSpreadRow]


class JudgeLabel(TypedDict, total=False):
    """One failed attempt's label from the judge (``judge.labels``)."""

    task_id: str | None
    attempt: int | None
    outcome: str | None
    category: str | None
    reason: str | None
    judge_error: str
    not_judged: bool


class JudgeReport(TypedDict):
    """``analysis.json``'s ``judge``: the judge's labels, counts and usage."""

    model: dict[str, object]
    scope: str
    taxonomy: dict[str, str]
    n_failed: int
    n_judged: int
    n_not_judged: int
    n_judge_errors: int
    categories: dict[str, int]
    usage: UsageRecord
    cost_usd: float | None
    labels: list[JudgeLabel]


class Figures(TypedDict, total=False):
    """``analysis.json``'s ``figures``: the run's headline figures with their intervals."""

    mean_reward: float
    mean_reward_ci: Interval
    mean_reward_valid: float | None
    mean_reward_valid_ci: Interval
    pass_rate: float
    pass_rate_ci: Interval
    resolved_rate: float
    resolved_rate_ci: Interval
    pass_at_k: dict[str, float]
    pass_at_k_ci: dict[str, Interval]
    pass_hat_k: dict[str, float]
    pass_hat_k_ci: dict[str, Interval]


class Analysis(TypedDict):
    """``analysis.json``: what ``analyze_run`` writes and returns."""

    version: int
    created_at: str
    run: RunMeta
    params: dict[str, object]
    breakdown: Breakdown
    figures: Figures
    task_spread: TaskSpread | None
    distributions: Distributions
    error_groups: list[ErrorGroup]
    slowest: list[TopTask]
    costliest: list[TopTask]
    judge: JudgeReport | None
