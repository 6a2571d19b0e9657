"""A run's sessions: the first one and each ``--reuse`` that continued it.

``run.json`` and ``summary.json`` keep the run's first start (``started_at``) and list every session in
``sessions`` (``started_at``, ``finished_at``, ``duration_s``, ``samples_run``, ``status``); the run's
``duration_s`` is the sum of its sessions' durations, so a reuse never replaces the history it continues. A run
written before sessions were recorded counts as one session, read from its ``run.json`` and ``summary.json``.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from typing_extensions import TypedDict

from .result import Session

if TYPE_CHECKING:
    from .records import JsonObject
    from .result import RunRecord, RunResult


class SessionsRecord(TypedDict):
    """What run.json and summary.json's metadata say of the sessions."""

    started_at: str  # the run's first start
    duration_s: float  # every session's
    sessions: list[Session]


def _earlier(record: RunRecord | JsonObject, summary: RunResult | None) -> list[Session]:
    """The sessions recorded by the run being reused (one, read from its timings, for older run directories)."""
    run: Any = record  # as read: a run directory of any age
    md: Any = (summary["metadata"] if summary else None) or {}
    recorded = md.get("sessions") or run.get("sessions")
    if isinstance(recorded, list) and recorded:
        return [Session(**s) for s in recorded if isinstance(s, dict)]  # type: ignore[typeddict-item]
    started = run.get("started_at") or md.get("started_at")
    if not started:
        return []
    finished = md.get("finished_at") or run.get("updated_at")
    duration = md.get("duration_s")
    if duration is None and finished:
        duration = round((datetime.fromisoformat(finished) - datetime.fromisoformat(started)).total_seconds(), 3)
    return [
        {
            "started_at": started,
            "finished_at": finished,
            "duration_s": duration,
            "samples_run": run.get("n_finished"),
            "status": run.get("status") or md.get("status"),
        }
    ]


class Sessions:
    """The sessions before this one and this one (started when the object is made)."""

    def __init__(self) -> None:
        self.started_at = datetime.now(UTC)
        self._t0 = time.monotonic()
        self.earlier: list[Session] = []
        self.kept = 0  # samples finished before this session, kept by it
        self._end: tuple[datetime, float] | None = None  # (finished at, duration), once the session ended

    def continue_from(self, run: RunRecord | JsonObject, summary: RunResult | None) -> None:
        """This session continues the run whose record is ``run.json`` / ``summary.json`` (``--reuse``)."""
        self.earlier = _earlier(run, summary)

    @property
    def first_started_at(self) -> str:
        first = self.earlier[0].get("started_at") if self.earlier else None
        return str(first) if first else self.started_at.isoformat()

    def current(self, n_finished: int, status: str, finished: datetime | None = None) -> Session:
        """This session: ``finished_at`` None while it runs (the first end given is kept: summary.json and the
        final run.json say the same); ``samples_run`` the samples it finished."""
        if finished is not None and self._end is None:
            self._end = (finished, round(time.monotonic() - self._t0, 3))
        end, duration = self._end if self._end is not None else (None, round(time.monotonic() - self._t0, 3))
        return {
            "started_at": self.started_at.isoformat(),
            "finished_at": end.isoformat() if end is not None else None,
            "duration_s": duration,
            "samples_run": max(0, n_finished - self.kept),
            "status": str(status),
        }

    def record(self, n_finished: int, status: str, finished: datetime | None = None) -> SessionsRecord:
        """``started_at`` (the run's first start), ``duration_s`` (every session's) and ``sessions``."""
        sessions = [*self.earlier, self.current(n_finished, status, finished)]
        total = sum(float(s.get("duration_s") or 0.0) for s in sessions)
        return {"started_at": self.first_started_at, "duration_s": round(total, 3), "sessions": sessions}
