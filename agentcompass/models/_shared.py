"""What a model client and its forks share: SDK clients, the protocol choice, the provider semaphore, the
prices and the cache / replay plan."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from typing import TYPE_CHECKING, Any

from agentcompass.interfaces import Usage

from ._cache.calls import CallPlan
from ._circuit import Circuit
from ._prices import PriceInfo

if TYPE_CHECKING:
    from .client import _Route

CONNECTIONS_PER_SHARD = 8


class Shared:
    """What a client and its forks share: SDK clients, the protocol choice, the provider semaphore.

    Each SDK family gets ``shards`` SDK clients used in turn: the HTTP pool of one client scans all its
    connections on every request, so several small pools cost less CPU than one large one.
    """

    circuit: Circuit  # fail fast on a dead endpoint (set by the root client)
    price: PriceInfo  # the model's prices and where they came from (set by the root client)
    plan: CallPlan  # cache, replay and the per-attempt cost limit (set by the root client)

    def __init__(self, candidates: list[str], limit: int | None) -> None:
        self.candidates, self.chosen, self.limit = candidates, None, limit
        self.total = Usage()
        self.routes: dict[str, _Route] = {}  # by protocol
        self._clients: dict[Any, tuple[Any, list[Any]]] = {}
        self._turn = itertools.count()
        self._sem: asyncio.Semaphore | None = None
        self._sem_loop: Any = None

    @property
    def shards(self) -> int:
        return max(1, min(16, -(-(self.limit or 32) // CONNECTIONS_PER_SHARD)))

    def client(self, family: Any, factory: Any) -> Any:
        """A client made by ``factory`` for the running event loop (made on first use), in turn; ``family`` keys the
        clients (a protocol module's ``make_client``: the protocols sharing one share the clients)."""
        loop = asyncio.get_running_loop()
        held = self._clients.get(family)
        if held is None or held[0] is not loop:
            held = (loop, [])
            self._clients[family] = held
        pool = held[1]
        i = next(self._turn) % self.shards
        while len(pool) <= i:
            pool.append(factory())
        return pool[i]

    def slot(self) -> Any:
        """An async context holding one of ``limit`` provider slots (no-op without a limit)."""
        if self.limit is None:
            return contextlib.nullcontext()
        loop = asyncio.get_running_loop()
        if self._sem is None or self._sem_loop is not loop:
            self._sem, self._sem_loop = asyncio.Semaphore(self.limit), loop
        return self._sem

    def set_limit(self, n: int | None) -> None:
        self.limit, self._sem = n, None

    async def aclose(self) -> None:
        loop = asyncio.get_running_loop()
        for family, (owner, clients) in list(self._clients.items()):
            if owner is loop:
                for client in clients:
                    await client.close()
            del self._clients[family]
