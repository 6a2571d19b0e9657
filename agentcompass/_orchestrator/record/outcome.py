"""What one attempt produced (:class:`AttemptOutcome`, written as its ``result.json``), and how a failure is
recorded in it."""

from __future__ import annotations

import asyncio
import functools
import logging
import operator
import socket
import traceback
from dataclasses import dataclass, field, fields
from typing import Any

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from agentcompass._config import scrub
from agentcompass.conversation import Transcript
from agentcompass.errors import AgentCompassError, StorageError, classify, one_line
from agentcompass.interfaces import AgentResult, AttemptStatus, Usage

from .records import OPEN, JsonObject, UsageRecord
from .store import AttemptRecord


@with_config(OPEN)
class AgentRecord(TypedDict, total=False):
    """The agent phase's result (:class:`~agentcompass.interfaces.AgentResult`) as ``result.json`` and
    ``checkpoint.json`` hold it; ``info`` is the harness's own."""

    exit_status: str  # an ExitStatus value, or a harness's own
    submission: str | None
    n_turns: int
    usage: UsageRecord
    trajectory_path: str | None
    limit_hit: str | None
    n_format_errors: int
    info: JsonObject
    transcript: JsonObject  # a tool-use conversation (absent for coding agents)


@with_config(OPEN)
class GradeRecord(TypedDict, total=False):
    """The verifier's outcome: its error and the benchmark's own ``details``; after an agent-phase error also
    ``after_error``, ``reward_counts`` and the ``reward`` the verifier wrote."""

    error: str | None
    details: JsonObject
    after_error: bool
    reward_counts: bool
    reward: float | None


@with_config(OPEN)
class IntegrityRecord(TypedDict, total=False):
    """The integrity scan's verdict on the attempt (docs/integrity.md)."""

    verdict: str
    flags: list[JsonObject]
    n_flags: int


@dataclass(slots=True)
class AttemptOutcome:
    """One attempt's outcome, filled in as the attempt goes; written as its ``result.json`` (:meth:`record`).

    A plain dataclass: an attempt sets a dozen fields and writes them once, which a validating model made cost
    more than the rest of a trivial attempt's bookkeeping. Its schema (``agentcompass schema result``) is
    pydantic's reading of these annotations, and every ``result.json`` the test suite writes is validated
    against it (``tests/record_schema.py``). Open, as the file is: a key a later version adds is valid."""

    __pydantic_config__ = ConfigDict(extra="allow", title="AttemptResult")

    task_id: str
    attempt: int
    status: AttemptStatus
    attempt_dir: str
    reward: float | None = None
    rewards: dict[str, float] = field(default_factory=dict)
    resolved: bool | None = None
    error_type: str | None = None
    error: str | None = None  # "<Type>: <message>"
    error_class: str | None = None
    retryable: bool = False
    duration_s: float = 0.0  # from the moment the attempt holds its slot
    queue_s: float = 0.0  # the wait for the slot before that
    phases: dict[str, float] = field(default_factory=dict)
    usage: UsageRecord = field(default_factory=lambda: UsageRecord())
    usage_by_role: dict[str, UsageRecord] = field(default_factory=dict)  # the model roles' usage (user, judge...)
    agent: AgentRecord = field(default_factory=lambda: AgentRecord())
    grade: GradeRecord = field(default_factory=lambda: GradeRecord())
    environment: JsonObject = field(default_factory=dict)  # the provider's description of the environment
    resumed_from_checkpoint: bool = False
    artifacts: JsonObject | None = None
    reward_valid: bool = False  # the reward counts (no error, or the error's policy counts it)
    sample: int = 1  # the independent sample of the task this attempt belongs to
    node: JsonObject = field(default_factory=dict)  # where it ran (host; with executor ray, the Ray node)
    integrity: IntegrityRecord | None = None  # added by the integrity scan; written only once scanned

    @classmethod
    def written_fields(cls) -> list[str]:
        """The fields every ``result.json`` holds (``integrity`` only once scanned)."""
        return list(_WRITTEN)

    def record(self) -> JsonObject:
        """The ``result.json`` object (enum members as they are: the file's JSON writes their values). Its
        containers are copies: the outcome may change after its record is queued for writing."""
        out: JsonObject = {
            name: value.copy() if type(value) is dict else value
            for name, value in zip(_WRITTEN, _written(self), strict=True)
        }
        if self.integrity is not None:
            out["integrity"] = self.integrity  # type: ignore[assignment]  # a TypedDict of JSON values
        return out


_WRITTEN = tuple(f.name for f in fields(AttemptOutcome) if f.name != "integrity")  # every result.json's, in order
_written = operator.attrgetter(*_WRITTEN)


def agent_to_dict(res: AgentResult) -> AgentRecord:
    out: dict[str, Any] = dict(vars(res))
    out["usage"] = res.usage.to_dict()
    if res.transcript is None:
        out.pop("transcript", None)  # coding agents: result.json as before
    elif isinstance(res.transcript, Transcript):
        out["transcript"] = res.transcript.to_dict()
    return out  # type: ignore[return-value]


def agent_from_dict(record: AgentRecord | JsonObject) -> AgentResult:
    data: dict[str, Any] = dict(record)
    usage = data.pop("usage", {}) or {}
    res = AgentResult(**{k: v for k, v in data.items() if k in AgentResult.__dataclass_fields__})
    res.usage = Usage.from_dict(usage)
    if isinstance(res.transcript, dict):
        res.transcript = Transcript.from_dict(res.transcript)
    return res


@functools.cache
def _hostname() -> str:
    return socket.gethostname()


def new_outcome(task_id: str, n: int, sample: int, record: AttemptRecord, resumed: bool) -> AttemptOutcome:
    return AttemptOutcome(
        task_id=task_id,
        attempt=n,
        status=AttemptStatus.COMPLETED,
        attempt_dir=str(record.dir),
        resumed_from_checkpoint=resumed,
        sample=sample,
        node={"hostname": _hostname()},
    )


def record_failure(out: AttemptOutcome, exc: BaseException, record: AttemptRecord, logger: logging.Logger) -> None:
    """Mark ``out`` failed with ``exc`` (type, one line, class, retryable) and keep its traceback in error.txt."""
    out.status, out.reward_valid = AttemptStatus.ERROR, False
    out.error_type = type(exc).__name__
    out.error = scrub(one_line(exc))  # an endpoint may quote a credential back: none reaches result.json
    out.error_class = classify(exc)
    out.retryable = isinstance(exc, AgentCompassError) and bool(exc.retryable)
    if not isinstance(exc, asyncio.CancelledError):
        where = f"{out.task_id}" if out.sample == 1 else f"{out.task_id} sample {out.sample}"
        # a full disk stops the request, which says so in one line: no warning per attempt
        logger.log(
            logging.DEBUG if isinstance(exc, StorageError) else logging.WARNING,
            "%s attempt %d failed: %s",
            where,
            out.attempt,
            out.error,
        )
        record.write_error(scrub("".join(traceback.format_exception(exc))))
