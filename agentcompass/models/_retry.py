"""Retries of one model call: exponential backoff with full jitter, honouring Retry-After.

Retried: 408, 409, 425, 429, 5xx (not 501), dropped connections, timeouts and malformed bodies; a
``x-should-retry`` response header overrides the status rule. A call is given up after ``max_retries``
retries, or when the next retry would start later than ``retry_budget_s`` after the call began; the
error raised then is a ``ModelRetryableError`` (``retryable=True``) so that the orchestrator may retry
the attempt. Backoff of retry n (0-based): ``uniform(0, min(backoff_max_s, backoff_base_s * 2**n))``,
or exactly the server's Retry-After when it sends one. The SDKs' own retries are off (``max_retries=0``).
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from ._errors import describe

T = TypeVar("T")


@dataclass
class RetryPolicy:
    max_retries: int = 8
    budget_s: float = 300.0
    base_s: float = 1.0
    max_s: float = 60.0
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, n: int, retry_after: float | None) -> float:
        """Seconds to wait before retry ``n`` (0-based)."""
        if retry_after is not None and math.isfinite(retry_after) and retry_after >= 0:
            return retry_after
        return self.rng.uniform(0.0, min(self.max_s, self.base_s * (2 ** min(n, 30))))


async def call_with_retries(
    send: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    protocol: str,
    endpoint: str,
    secret: str | None,
    log: logging.Logger,
    on_retry: Callable[[], None],
) -> T:
    """Await ``send()`` until it succeeds, retrying transient failures (see the module doc)."""
    start = time.monotonic()
    n = 0
    while True:
        try:
            return await send()
        except Exception as exc:
            failure = describe(exc)
            if failure is None:
                raise
        if not failure.retryable:
            raise failure.error(protocol, endpoint, secret) from None
        delay = policy.delay(n, failure.retry_after)
        elapsed = time.monotonic() - start
        if n >= policy.max_retries or elapsed + delay > policy.budget_s:
            why = "max_retries" if n >= policy.max_retries else "retry_budget_s"
            note = f" (gave up after {n} retries in {elapsed:.1f}s: {why} reached)"
            raise failure.error(protocol, endpoint, secret, note) from None
        n += 1
        on_retry()
        log.warning(
            "model call to %s failed (%s); retry %d/%d in %.2fs", endpoint, failure.kind, n, policy.max_retries, delay
        )
        await asyncio.sleep(delay)
