"""What one attempt produced (:class:`AttemptOutcome`, written as its ``result.json``), and how a failure is
recorded in it."""

from __future__ import annotations

import asyncio
import functools
import logging
import socket
import traceback
from dataclasses import dataclass, field
from typing import Any

from agentcompass._config.redact import scrub
from agentcompass.conversation import Transcript
from agentcompass.errors import AgentCompassError, StorageError, classify, one_line
from agentcompass.interfaces import AgentResult, AttemptStatus, Usage

from .store import AttemptRecord


@dataclass
class AttemptOutcome:
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
    usage: dict[str, Any] = field(default_factory=dict)
    usage_by_role: dict[str, Any] = field(default_factory=dict)  # the model roles' usage (user, judge...)
    agent: dict[str, Any] = field(default_factory=dict)
    grade: dict[str, Any] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)
    resumed_from_checkpoint: bool = False
    artifacts: dict[str, Any] | None = None
    reward_valid: bool = False  # the reward counts (no error, or the error's policy counts it)
    sample: int = 1  # the independent sample of the task this attempt belongs to
    node: dict[str, Any] = field(default_factory=dict)  # where it ran (host; with executor ray, the Ray node)


def agent_to_dict(res: AgentResult) -> dict[str, Any]:
    out = dict(vars(res))
    out["usage"] = res.usage.to_dict()
    if res.transcript is None:
        out.pop("transcript", None)  # coding agents: result.json as before
    elif isinstance(res.transcript, Transcript):
        out["transcript"] = res.transcript.to_dict()
    return out


def agent_from_dict(data: dict[str, Any]) -> AgentResult:
    data = dict(data)
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
        task_id,
        n,
        AttemptStatus.COMPLETED,
        str(record.dir),
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
