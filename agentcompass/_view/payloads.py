"""The viewer's API payloads (``/api/...`` and the report's embedded data), as the page's script reads them.
Plain dicts at run time; values read from a run's files pass through as they were written."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NotRequired, TypedDict

from agentcompass._analysis.comparison import Comparison, Pair
from agentcompass._orchestrator.record import (
    ErrorsByClass,
    GradeRecord,
    IntegrityRecord,
    JsonObject,
    RunPaths,
    Tokens,
    UsageRecord,
)


class FileEntry(TypedDict):
    """A file of a folder: its name relative to the folder, its size."""

    name: str
    size: int


class TextFile(TypedDict):
    """A text file as shown: whole, or its head and tail when larger than the limit."""

    name: str
    size: int
    text: str
    truncated: bool


class Patch(TextFile):
    """The submitted patch, and where it was found (a file, or ``result.json: agent.submission``)."""

    source: str


class TrajectoryRef(TypedDict):
    """The attempt's trajectory file (fetched on its own; the report inlines it, ``data`` cut to a budget)."""

    path: str
    name: str
    size: int
    data: NotRequired[object]
    trimmed: NotRequired[bool]


ErrorView = TypedDict(
    "ErrorView",
    {
        "type": str | None,
        "message": str | None,
        "class": str | None,
        "retryable": bool | None,
        "traceback": str | None,
        "truncated": NotRequired[bool],  # the report cut the traceback
    },
)
"""An attempt's error: type, message, class, whether it was retryable, and its traceback (error.txt)."""


class AttemptEntry(TypedDict):
    """One attempt directory of a task."""

    path: str
    sample: int | None  # shown only for a task with several samples
    attempt: int
    status: str
    reward: float | None


class AttemptIds(TypedDict):
    task_dir: str
    sample: int | None
    attempt: int | None


class ToolCallView(TypedDict):
    name: str | None
    arguments: str


class CallRow(TypedDict):
    """One model call of ``model_calls.jsonl`` as listed (the whole line: ``/api/call``)."""

    index: int
    seq: int | None
    time: str | None
    source: str | None
    agent_protocol: str | None
    upstream_protocol: str | None
    translated: bool
    model: str | None
    role: str | None
    stream: bool | None
    status: str | None
    http_status: int | None
    error: object
    usage: dict[str, object]  # the call's tokens and cost, as recorded
    latency_s: float | None
    ttft_s: float | None
    retries: int | None
    cache: object
    warnings: list[str]
    finish_reason: str | None
    text: str
    text_cut: bool
    tool_calls: list[ToolCallView]


class CallTotals(TypedDict):
    calls: int
    input: int
    output: int
    cached: int
    cost_usd: float | None  # None: a price unknown
    retries: int
    by_status: dict[str, int]


class CallsSummary(TypedDict):
    file: str
    totals: CallTotals
    rows: list[CallRow]
    truncated: bool


class AttemptDetail(AttemptIds):
    """The Attempt page: result.json's fields, the files around it and the model calls."""

    key: str
    path: str
    task_id: str | None
    running: bool
    status: str
    reward: float | None
    rewards: dict[str, float]
    resolved: bool | None
    duration_s: float | None
    phases: dict[str, float]
    usage: UsageRecord
    usage_by_role: dict[str, UsageRecord]
    agent: dict[str, object]
    transcript: object
    grade: GradeRecord
    integrity: IntegrityRecord | None
    environment: JsonObject
    resumed_from_checkpoint: bool | None
    error: ErrorView | None
    verifier_log: TextFile | None
    patch: Patch | None
    trajectory: TrajectoryRef | None
    model_calls: CallsSummary | None
    files: list[FileEntry]
    artifacts: object  # the artifacts manifest, as written
    siblings: list[AttemptEntry]
    stamp: str


class Components(TypedDict):
    """A run's component ids (from its summary, else its config.yaml)."""

    benchmark: str | None
    harness: str | None
    model: str | None
    environment: str | None


class RunRow(TypedDict):
    """One line of the Runs page (a run still running is summarised from its results so far: ``partial``)."""

    key: str
    run_name: str
    run_id: str
    status: str | None
    benchmark: str | None
    harness: str | None
    model: str | None
    environment: str | None
    n_tasks: int | None
    n_finished: int | None  # samples
    n_samples: int | None  # finished samples
    n_samples_total: int | None
    samples_per_task: int
    mean_reward: float | None
    mean_reward_denominator: int | None
    pass_rate: float | None
    resolved: int | None
    n_errors: int | None
    errors_by_class: ErrorsByClass | None
    tokens: Tokens | None
    cost_usd: float | None
    duration_s: float | None
    started_at: str | None
    updated_at: str | None
    partial: bool
    stamp: str


class RunDetail(TypedDict):
    """The Run page's header: run.json, the metadata (without the config), metrics, files, analysis links."""

    key: str
    run: dict[str, object]
    metadata: dict[str, object]
    components: Components
    metrics: Mapping[str, object]  # summary.json's, or the partial run's so far
    partial: bool
    config: object  # config.yaml, key-like values masked
    files: list[str]
    analysis: dict[str, bool]
    paths: RunPaths | dict[str, str]
    stamp: str


class TaskRow(TypedDict, total=False):
    """A row of the Run page's task table: a finished sample, or a task running, pending or not run."""

    id: str
    sample: int | None
    status: str
    outcome: str
    reward: float | None
    sub: dict[str, float]  # the sub-rewards
    resolved: bool | None
    attempts: int | None
    error_type: str | None
    error: str | None
    error_class: str | None
    duration_s: float | None
    tokens_in: int | None
    tokens_out: int | None
    cost_usd: float | None
    exit_status: str | None
    limit_hit: str | None
    path: str | None
    dir: str
    integrity: dict[str, object] | None


class TaskOutcome(TypedDict):
    """A task's outcome in one run of a comparison: the mean reward of its samples."""

    reward: float
    n: int
    outcome: str  # the samples' outcome, or mixed
    path: str | None  # its first sample's attempt


class CompareTask(TypedDict):
    id: str
    a: TaskOutcome | None
    b: TaskOutcome | None
    flip: str | None  # gained | lost
    delta: float | None


class ComparePage(TypedDict):
    """The Compare page of two runs: their rows, ``agentcompass compare``'s numbers and the tasks side by side."""

    a: RunRow
    b: RunRow
    same_benchmark: bool
    stats: Pair | None
    comparison: Comparison | None
    n_gained: int
    n_lost: int
    only_a: list[str]
    only_b: list[str]
    tasks: list[CompareTask]


class ReportAnalysis(TypedDict):
    """A run's analysis in the report: links to its files, and analysis.md's text."""

    links: dict[str, str]
    md: str | None


class RunPart(TypedDict):
    """One run of the report: its Run page and every attempt's detail (packed)."""

    run: RunDetail
    tasks: list[TaskRow]
    attempts: dict[str, str]  # attempt path -> its payload, gzipped JSON in base64


class ReportCounts(TypedDict):
    tasks: int
    attempts: int
    runs: int


class ReportWritten(ReportCounts):
    """What ``agentcompass report`` wrote: the file, its size and what it holds."""

    path: str
    bytes: int
