"""The driver's services for remote attempts: one Ray actor per run or orchestration, pinned to the driver's node.

Workers ask it, before each environment open, for a turn of that provider's ``env_open_qps`` (the same
:class:`~agentcompass._orchestrator.pool.RateLimiter` the driver uses locally), and, around each model call,
for a token of that model provider's ``provider_limits`` (a semaphore per provider), so both limits hold across
the whole cluster. It also knows which attempts started and finished: an attempt cancelled before it started
never starts, and the driver can wait until a cancelled one has closed its environments. Tokens are leased per
attempt: when an attempt's node dies, the driver hands its tokens back (:meth:`ClusterServices.forget`).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from agentcompass._orchestrator.pool import RateLimiter


class ClusterServices:
    """Run as an async Ray actor (``ray.remote(ClusterServices)``); every method is a coroutine."""

    def __init__(self, env_open_qps: dict[str, float], model_limits: dict[str, int]) -> None:
        self._rates = {p: RateLimiter(q) for p, q in env_open_qps.items()}
        self._limits = dict(model_limits)
        self._sems = {p: asyncio.Semaphore(n) for p, n in model_limits.items()}
        self._held: dict[str, Counter] = {}
        self._gone: set[str] = set()  # attempts whose tokens were handed back (node lost, cancelled)
        self._started: set[str] = set()
        self._done: dict[str, asyncio.Event] = {}
        self._cancelled: set[str] = set()
        self.max_in_use: Counter = Counter()

    async def ping(self) -> bool:
        return True

    # ------------------------------------------------------------------ environment opens
    async def before_open(self, provider: str) -> None:
        limiter = self._rates.get(provider)
        if limiter is not None:
            await limiter.acquire()

    # ------------------------------------------------------------------ model calls
    async def acquire(self, provider: str, holder: str) -> bool:
        """One token of ``provider`` for ``holder``; False (and nothing held) when the holder is gone."""
        sem = self._sems.get(provider)
        if sem is None or holder in self._gone:
            return sem is None
        await sem.acquire()
        if holder in self._gone:  # its attempt was given up while it waited
            sem.release()
            return False
        self._held.setdefault(holder, Counter())[provider] += 1
        in_use = self._limits[provider] - sem._value
        self.max_in_use[provider] = max(self.max_in_use[provider], in_use)
        return True

    async def release(self, provider: str, holder: str) -> None:
        held = self._held.get(holder)
        if held is not None and held[provider] > 0:
            held[provider] -= 1
            self._sems[provider].release()

    async def forget(self, holder: str) -> int:
        """Hand back every token ``holder`` still holds (its attempt ended without releasing them)."""
        self._gone.add(holder)
        held = self._held.pop(holder, Counter())
        for provider, n in held.items():
            for _ in range(n):
                self._sems[provider].release()
        return sum(held.values())

    async def usage(self) -> dict[str, int]:
        return dict(self.max_in_use)

    # ------------------------------------------------------------------ attempt lifecycle
    async def start(self, key: str) -> bool:
        """Called by the worker first; False: the attempt was cancelled before it started (do nothing)."""
        if key in self._cancelled:
            return False
        self._started.add(key)
        self._done.setdefault(key, asyncio.Event())
        return True

    async def finish(self, key: str) -> None:
        """Called by the worker last, after its environments are closed."""
        self._done.setdefault(key, asyncio.Event()).set()

    async def cancel(self, key: str, timeout: float) -> str:
        """Mark ``key`` cancelled; wait (up to ``timeout``) until a started attempt has finished.
        Returns ``not_started``, ``finished`` or ``timeout``."""
        self._cancelled.add(key)
        if key not in self._started:
            return "not_started"
        try:
            await asyncio.wait_for(self._done[key].wait(), timeout)
        except TimeoutError:
            return "timeout"
        return "finished"

    async def drop(self, key: str) -> None:
        """Forget an attempt the driver is done with."""
        self._started.discard(key)
        self._cancelled.discard(key)
        self._done.pop(key, None)
        self._gone.discard(key)
        self._held.pop(key, None)


def actor_options(node_id: str) -> dict[str, Any]:
    """Pin the actor to the driver's node (it must not die with a worker node) and let it serve many calls."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return {
        "num_cpus": 0,
        "max_concurrency": 10_000,
        "max_restarts": 0,
        "scheduling_strategy": NodeAffinitySchedulingStrategy(node_id, soft=False),
    }
