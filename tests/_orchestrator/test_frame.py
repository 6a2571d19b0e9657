"""AttemptFrame: the slot, admission, queue time, budget accounting and cancel every executor's attempt runs in."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from agentcompass._orchestrator.record.outcome import AttemptOutcome
from agentcompass._orchestrator.scheduling import AttemptFrame
from agentcompass._orchestrator.scheduling.budget import Budget
from agentcompass._orchestrator.scheduling.pool import Pool
from agentcompass._orchestrator.scheduling.runtime import RequestRuntime
from agentcompass.interfaces import AttemptStatus


def _runtime(pool: Pool, budget: Budget) -> RequestRuntime:
    # the frame reads only the pool, the slot providers, the stop flag and the budgets
    return RequestRuntime(
        "req",
        "run",
        None,
        None,
        None,
        pool,
        None,
        logging.getLogger("test"),
        budgets=[budget],  # type: ignore[arg-type]
    )


class _Sleeps(AttemptFrame):
    """An attempt that holds its slot ``hold`` seconds and spends ``tokens``."""

    def __init__(self, rt: RequestRuntime, key: str, hold: float, tokens: int) -> None:
        super().__init__(rt, AttemptOutcome(task_id="t", attempt=1, status=AttemptStatus.ERROR, attempt_dir=""), key)
        self.hold, self.tokens = hold, tokens
        self.events: list[str] = []

    async def admitted(self, start: float) -> None:
        self.events.append("admitted")
        await asyncio.sleep(self.hold)
        self.out.usage = {"input": self.tokens}

    def cancelled(self, start: float) -> None:
        self.events.append("cancelled")
        self.out.usage = {"input": self.tokens}


def test_queue_time_counts_from_due_and_slots_are_shared() -> None:
    async def main() -> tuple[list[float], int]:
        pool, budget = Pool(1), Budget("request", None, None)
        rt = _runtime(pool, budget)
        due = time.monotonic() - 1.0
        attempts = [_Sleeps(rt, f"a{i}", 0.05, 1) for i in range(2)]
        outs = await asyncio.gather(*(a.run(due) for a in attempts))
        return [o.queue_s for o in outs], pool.max_running

    queued, most = asyncio.run(main())
    assert most == 1  # one slot: the second attempt waited for the first
    assert min(queued) >= 1.0 and max(queued) >= 1.05


def test_refused_admission_never_starts_and_spending_counts_once() -> None:
    async def main() -> tuple[list[str], list[str], int]:
        budget = Budget("request", None, 10)
        rt = _runtime(Pool(1), budget)
        first, second = _Sleeps(rt, "a", 0.0, 10), _Sleeps(rt, "b", 0.0, 1)
        await first.run()
        with pytest.raises(asyncio.CancelledError):
            await second.run()
        return first.events, second.events, budget.tokens

    first, second, tokens = asyncio.run(main())
    assert first == ["admitted"] and second == []
    assert tokens == 10


def test_cancel_while_admitted_is_recorded_and_counted() -> None:
    async def main() -> tuple[list[str], int, int]:
        pool, budget = Pool(1), Budget("request", None, None)
        attempt = _Sleeps(_runtime(pool, budget), "a", 30.0, 7)
        running = asyncio.ensure_future(attempt.run())
        await asyncio.sleep(0.05)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        return attempt.events, budget.tokens, pool.running

    events, tokens, running = asyncio.run(main())
    assert events == ["admitted", "cancelled"]
    assert tokens == 7 and running == 0
