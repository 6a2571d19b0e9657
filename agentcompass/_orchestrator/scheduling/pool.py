"""The attempt pool: one global slot limit, per-provider limits and environment-open rate limits.

Every attempt, retries included, holds one global slot for its whole life. The pool is shared by every
request of an orchestration, so ``task_concurrency`` is global. It also measures itself: the largest
number of attempts ever running at once and the busy-slot time integral (for utilisation figures).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class RateLimiter:
    """At most ``qps`` acquisitions per second, spaced evenly (no bursts)."""

    def __init__(self, qps: float) -> None:
        self.interval = 1.0 / qps
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        async with self._lock:
            now = time.monotonic()
            wait = self._next - now
            self._next = max(now, self._next) + self.interval
        if wait > 0:
            await asyncio.sleep(wait)


class Pool:
    def __init__(
        self,
        task_concurrency: int,
        provider_limits: dict[str, int] | None = None,
        env_open_qps: dict[str, float] | None = None,
    ) -> None:
        self.size = task_concurrency
        self._global = asyncio.Semaphore(task_concurrency)
        self._limits = dict(provider_limits or {})
        self._providers: dict[str, asyncio.Semaphore] = {}
        self._rates = {p: RateLimiter(q) for p, q in (env_open_qps or {}).items()}
        self.running = 0
        self.max_running = 0
        self._busy_integral = 0.0
        self._last_change = time.monotonic()
        self._started: float | None = None  # the first attempt's start

    def limit_provider(self, name: str, limit: int | None) -> None:
        """Add a provider's own limit (the smaller of it and ``provider_limits[name]`` applies)."""
        if limit is not None:
            current = self._limits.get(name)
            self._limits[name] = limit if current is None else min(current, limit)

    def _provider_sem(self, name: str) -> asyncio.Semaphore | None:
        if name not in self._limits:
            return None
        if name not in self._providers:
            self._providers[name] = asyncio.Semaphore(self._limits[name])
        return self._providers[name]

    def _account(self, delta: int) -> None:
        now = time.monotonic()
        if self._started is None:
            if delta <= 0:
                return
            self._started = self._last_change = now
        self._busy_integral += self.running * (now - self._last_change)
        self._last_change = now
        self.running += delta
        self.max_running = max(self.max_running, self.running)

    @asynccontextmanager
    async def slot(self, providers: list[str]) -> AsyncIterator[None]:
        """Hold provider slots (sorted, to avoid deadlock) then one global slot."""
        sems = [s for s in (self._provider_sem(p) for p in sorted(set(providers))) if s is not None]
        acquired: list[asyncio.Semaphore] = []
        try:
            for sem in sems:
                await sem.acquire()
                acquired.append(sem)
            async with self._global:
                self._account(+1)
                try:
                    yield
                finally:
                    self._account(-1)
        finally:
            for sem in reversed(acquired):
                sem.release()

    async def before_open(self, provider: str) -> None:
        """Wait for the provider's environment-open rate limit, if any."""
        limiter = self._rates.get(provider)
        if limiter is not None:
            await limiter.acquire()

    def utilisation(self) -> float:
        """Mean busy slots / pool size, from the first attempt's start to the last change."""
        if self._started is None:
            return 0.0
        elapsed = self._last_change - self._started
        return self._busy_integral / (elapsed * self.size) if elapsed > 0 else 0.0
