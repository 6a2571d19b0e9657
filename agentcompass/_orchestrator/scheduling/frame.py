"""The frame every attempt runs in, whichever executor runs it: its slot, its admission, its queue time, its
budget accounting and what a cancel leaves behind.

:class:`AttemptFrame` is a small template: :meth:`AttemptFrame.run` waits for a slot of the request's pool (its
providers' slots, then a global one), refuses to start when the request is stopping or a budget is spent (the
attempt never starts: nothing is recorded), then starts the attempt's clock (``queue_s`` is the wait from its due
time to here) and hands over to :meth:`AttemptFrame.admitted`, the one part an executor supplies: in this process
(:mod:`.attempt`) or as a Ray task (``agentcompass._ray``). Cancelled while admitted, the attempt is recorded as
cancelled (:meth:`AttemptFrame.cancelled`); whatever happens, its spending counts for the budgets once it ends,
before its slot is freed.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from ..metrics import write_scanned_result

if TYPE_CHECKING:
    from agentcompass.interfaces import Usage

    from ..record import AttemptOutcome, AttemptRecord, JsonObject, UsageRecord
    from .runtime import RequestRuntime

__all__ = ["AttemptFrame"]


class AttemptFrame:
    """One attempt of ``rt``'s request, its outcome ``out`` (filled by the subclass); ``key`` names it to the
    budgets (unique among the attempts running at once)."""

    def __init__(self, rt: RequestRuntime, out: AttemptOutcome, key: Any) -> None:
        self.rt, self.out, self.key = rt, out, key

    async def run(self, due: float | None = None) -> AttemptOutcome:
        """The attempt, due since ``due`` (``time.monotonic``; now when None): it exists from the moment it holds
        its slot (``duration_s`` counts from then, the wait before it is ``queue_s``); a cancelled wait or a
        refused admission raises CancelledError and leaves nothing on disk."""
        rt, out = self.rt, self.out
        queued = time.monotonic() if due is None else due
        async with rt.pool.slot(rt.slot_providers):
            if not rt.admits():  # the request is stopping, or its budget is spent: this attempt never starts
                raise asyncio.CancelledError()
            rt.attempt_started(self.key, self.live_usage)
            start = time.monotonic()
            out.queue_s = round(start - queued, 4)
            try:
                await self.admitted(start)
            except asyncio.CancelledError:  # cancelled while running: recorded
                self.cancelled(start)
                raise
            finally:
                rt.attempt_ended(self.key, self.spent)
        return out

    async def admitted(self, start: float) -> None:
        """Run the admitted attempt (started at ``start``) to its end: its outcome complete, its record written
        or queued. Failures of the attempt are recorded in the outcome; what raises stops the request."""
        raise NotImplementedError

    def cancelled(self, start: float) -> None:
        """Record the attempt as cancelled (it was admitted at ``start``)."""
        raise NotImplementedError

    def live_usage(self) -> Usage | None:
        """The attempt's usage while it runs, as the budgets may watch it (None: only known once it ends)."""
        return None

    def write_result(self, record: AttemptRecord, result: JsonObject) -> None:
        """The ended attempt's ``result.json`` (``result``: its outcome's record), run by the run's writer after
        the attempt's other files; with the integrity scan, its verdict included and kept in the outcome (for
        the sample's row)."""
        if self.rt.scan_benchmark is None:
            return record.write_result(result)
        integrity = write_scanned_result(record, result, self.rt.scan_benchmark)
        if integrity is not None:
            self.out.integrity = integrity

    def spent(self) -> UsageRecord | None:
        """What the attempt spent in all, once it ended (its ``result.json`` usage)."""
        return self.out.usage or None
