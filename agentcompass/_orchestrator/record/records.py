"""The typed record shared by an attempt's ``result.json``, a ``results.jsonl`` row and ``summary.json``: the
small shapes they have in common (tokens, usage, an error, an interval, an integrity verdict) and a results row.

Runtime values stay plain dicts (a row is read back from JSON, handed to a benchmark's ``finalize``, summed by
the metrics); these ``TypedDict``\\ s give them a static type and, through pydantic, a validator and a JSON Schema
(:mod:`.schema`). Every shape is open: a key added later, or by a benchmark or a harness, is kept and allowed.
Field names are the user-facing contract (docs/results.md).
"""

from __future__ import annotations

from typing import NotRequired

from pydantic import ConfigDict, JsonValue, with_config
from typing_extensions import TypedDict

from agentcompass.interfaces import AttemptStatus, Usage

OPEN = ConfigDict(extra="allow")  # a key added later (or by a plug-in) is kept, and valid

JsonObject = dict[str, JsonValue]  # a dict a benchmark or harness defines (grade details, agent info): any JSON


@with_config(OPEN)
class Tokens(TypedDict):
    input: int
    output: int
    cached: int


@with_config(OPEN)
class UsageRecord(TypedDict, total=False):
    """A model's usage (``Usage.to_dict()``): tokens, calls, retries, cost (None: a price was unknown)."""

    input: int
    output: int
    cached: int
    cost_usd: float | None
    calls: int
    retries: int
    cache_hits: int
    cost_saved_usd: float | None


@with_config(OPEN)
class ErrorInfo(TypedDict):
    type: str | None
    message: str


@with_config(OPEN)
class IntegritySummary(TypedDict):
    """What a row keeps of the integrity scan: the verdict and the detectors that fired."""

    verdict: str | None
    detectors: list[str]
    review: NotRequired[str]  # the LLM review's verdict (clean, suspect, hack; error), once reviewed


@with_config(OPEN)
class Review(TypedDict, total=False):
    """One attempt's review: ``result.json``'s ``integrity.review`` (``verdict`` None with ``error`` when the
    judge's answer was unusable)."""

    model: str
    verdict: str | None
    reason: str
    error: str
    usage: UsageRecord


@with_config(OPEN)
class ReviewReport(TypedDict, total=False):
    """``summary.json``'s ``metrics.integrity_review`` (only ``error`` when no judge could be built)."""

    model: str
    rubric: str
    n_selected: int
    n_reviewed: int
    verdicts: dict[str, int]
    n_errors: int
    usage: UsageRecord
    cost_usd: float | None
    error: str


@with_config(OPEN)
class Interval(TypedDict):
    """A figure's 95 % interval over tasks (``agentcompass._stats.intervals``)."""

    estimate: float | None
    low: float | None
    high: float | None
    se: float | None
    method: str  # wilson | cluster_t | none
    level: float
    n: NotRequired[int]


@with_config(OPEN)
class ResultRow(TypedDict):
    """One line of ``results.jsonl``: a (task, sample)'s final attempt after its retries. The rows a benchmark's
    ``finalize(run_dir, rows)`` gets are these."""

    task_id: str
    sample: int
    status: AttemptStatus  # completed | error
    reward: float | None
    rewards: dict[str, float]
    resolved: bool | None
    attempts: int
    error: ErrorInfo | None
    error_class: str | None
    duration_s: float  # the attempt itself, from the moment it held its slot
    queue_s: float  # its wait for the slot
    tokens: Tokens
    cost_usd: float | None
    cache_hits: int
    cost_saved_usd: float | None
    usage_by_role: NotRequired[dict[str, UsageRecord]]  # the model roles' usage, when one was used
    exit_status: str | None
    limit_hit: str | None
    n_turns: int
    reward_valid: bool
    attempt_outcomes: list[tuple[str, float | None]]  # every attempt's (status, counted reward)
    attempt_dir: str
    integrity: NotRequired[IntegritySummary | None]  # the integrity scan's verdict (scan on)


def usage_record(usage: Usage) -> UsageRecord:
    """A model's :class:`~agentcompass.interfaces.Usage` as the record holds it."""
    return usage.to_dict()  # type: ignore[return-value]  # Usage.to_dict's keys are UsageRecord's


def upgrade_row(row: ResultRow | JsonObject) -> ResultRow:
    """A row read back from ``results.jsonl`` as the current schema has it: a row written before samples existed
    gets ``sample`` 1 (what every reader takes it for), right after ``task_id`` as in a new row."""
    if "sample" in row:
        return row  # type: ignore[return-value]
    out: JsonObject = {"task_id": row.get("task_id"), "sample": 1}
    out.update(row)
    return out  # type: ignore[return-value]
