"""The driver's services for remote attempts: one Ray actor per run or orchestration, pinned to the driver's node,
made only when a request has cluster-wide limits.

Workers ask it, before each environment open of a provider with an ``env_open_qps``, for a turn (the same
:class:`~agentcompass._orchestrator.scheduling.RateLimiter` the driver uses locally), and, around each model call of a
provider with ``provider_limits``, for a token of that provider's semaphore, so both limits hold across the whole
cluster. Tokens are leased per attempt: when an attempt's node dies or it is cancelled, the driver hands its
tokens back (:meth:`ClusterServices.forget`), and a holder handed back is refused any further token.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from agentcompass._orchestrator.scheduling import RateLimiter


class ClusterServices:
    """Run as an async Ray actor (``ray.remote(ClusterServices)``); every method is a coroutine."""

    def __init__(self, env_open_qps: dict[str, float], model_limits: dict[str, int]) -> None:
        self._rates = {p: RateLimiter(q) for p, q in env_open_qps.items()}
        self._limits = dict(model_limits)
        self._sems = {p: asyncio.Semaphore(n) for p, n in model_limits.items()}
        self._held: dict[str, Counter] = {}
        self._gone: set[str] = set()  # attempts whose tokens were handed back (node lost, cancelled)
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
            if not +held:  # nothing held any more: nothing kept for this holder
                del self._held[holder]

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


def actor_options(node_id: str) -> dict[str, Any]:
    """Pin the actor to the driver's node (it must not die with a worker node) and let it serve many calls."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return {
        "num_cpus": 0,
        "max_concurrency": 10_000,
        "max_restarts": 0,
        "scheduling_strategy": NodeAffinitySchedulingStrategy(node_id, soft=False),
    }
