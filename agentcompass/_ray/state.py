"""What a Ray worker process keeps between the attempts it runs: the one place for worker-side state.

- **Its event loop** (a daemon thread): every attempt of this process runs on it, so what is made for a loop
  (the model layer's SDK clients and their HTTP pools) serves every attempt.
- **The requests it has seen** (:class:`RequestState`, one per request, keyed by the token the driver gives the
  request): the parts the driver ships once per request (``shared``: the resolved config, recipes, the services
  actor's handle when the request has cluster-wide limits, which providers have them), fetched from Ray's object
  store by the first attempt of that request that runs here; and the components built from them on this node
  (:class:`~.parts.Parts`: benchmark with its tasks loaded here, harness, model, environment provider).

- **Its services**, two kinds:

  - process-wide (:meth:`WorkerState.services`): made by the first attempt that needs each from the factories the
    driver ships with a request (``worker_services``, e.g. the model gateway: one serves every attempt this
    process runs, of any request); they end with the process (or close themselves when idle);
  - per request (:meth:`RequestState.service`): made on first use and closed (their ``aclose()``) with the
    request's parts.

A worker process never learns when a request ends, so a request's state closes when no attempt of it has run
here for ``IDLE_CLOSE_S`` (or when more than ``MAX_REQUESTS`` requests are kept, the least recently used first,
once its attempts ended).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from .parts import Parts, SharedRequest, build_parts

IDLE_CLOSE_S = 300.0
MAX_REQUESTS = 16
LOG = logging.getLogger("agentcompass.ray")


class RequestState:
    """One request as this worker process knows it (built on its first attempt here)."""

    def __init__(self, token: str, shared: SharedRequest, parts: Parts) -> None:
        self.token, self.shared, self.parts = token, shared, parts
        self.services: dict[str, Any] = {}
        self.running = 0
        self.last_used = time.monotonic()
        self._service_locks: dict[str, asyncio.Lock] = {}

    async def service(self, name: str, factory: Callable[[], Any]) -> Any:
        """This request's ``name`` service in this process, made by ``factory`` on first use."""
        if name not in self.services:
            async with self._service_locks.setdefault(name, asyncio.Lock()):
                if name not in self.services:
                    made = factory()
                    self.services[name] = await made if inspect.isawaitable(made) else made
        return self.services[name]

    async def aclose(self) -> None:
        """Close the services, then the environment provider (each failure logged, none raised)."""
        closers = [*self.services.values(), self.parts.provider]
        self.services = {}
        for thing in closers:  # every service and provider has aclose() (their protocols)
            try:
                await thing.aclose()
            except Exception as exc:
                LOG.debug("closing %s of request %s failed: %s", type(thing).__name__, self.token, exc)


class WorkerState:
    """This process's loop and requests (one instance: :data:`STATE`; ``fetch`` reads the shared parts from their
    reference, ``ray.get`` by default; ``idle_close_s`` and ``max_requests`` as the module's constants)."""

    def __init__(
        self,
        fetch: Callable[[Any], SharedRequest] | None = None,
        idle_close_s: float = IDLE_CLOSE_S,
        max_requests: int = MAX_REQUESTS,
    ) -> None:
        self.fetch = fetch or _ray_get
        self.idle_close_s, self.max_requests = idle_close_s, max_requests
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._requests: OrderedDict[str, asyncio.Future[RequestState]] = OrderedDict()
        self._sweeper: asyncio.TimerHandle | None = None
        self._services: dict[Any, Any] = {}  # factory -> its service in this worker process

    def services(self, factories: Sequence[Any], rt: Any) -> dict[str, Any]:
        """``{name: service}`` of this process for the attempt whose runtime is ``rt``: each factory's service,
        made by the first attempt that needs it (``factory(rt)``; None: not needed by this attempt's request)."""
        out: dict[str, Any] = {}
        for factory in factories:
            service = self._services.get(factory)
            if service is None:
                service = factory(rt)
                if service is None:
                    continue
                self._services[factory] = service
            out[service.name] = service
        return out

    def loop(self) -> asyncio.AbstractEventLoop:
        """The event loop of this worker process (a daemon thread), shared by every attempt it runs."""
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                threading.Thread(target=self._loop.run_forever, name="agentcompass-attempts", daemon=True).start()
            return self._loop

    @contextlib.asynccontextmanager
    async def attempt(self, request: list[Any]) -> AsyncIterator[RequestState]:
        """The state of the attempt's request (``[token, ObjectRef of the shared parts]``), held while it runs."""
        state = await self._request(request[0], request[1])
        state.running += 1
        try:
            yield state
        finally:
            state.running -= 1
            state.last_used = time.monotonic()
            self._schedule_sweep()

    async def _request(self, token: str, ref: Any) -> RequestState:
        fut = self._requests.get(token)
        if fut is None or (fut.done() and not _built(fut)):
            fut = asyncio.ensure_future(asyncio.to_thread(self._build, token, ref))
            self._requests[token] = fut
        self._requests.move_to_end(token)
        return await asyncio.shield(fut)

    def _schedule_sweep(self) -> None:
        if self._sweeper is None:
            loop = asyncio.get_running_loop()
            self._sweeper = loop.call_later(self.idle_close_s / 10, lambda: loop.create_task(self.sweep()))

    def requests(self) -> list[str]:
        """The tokens of the requests kept, least recently used first."""
        return list(self._requests)

    async def sweep(self) -> None:
        """Close the requests idle for ``idle_close_s``, and the least recently used idle ones beyond
        ``max_requests`` (a request with an attempt running is never closed)."""
        self._sweeper = None
        now, ready = time.monotonic(), [(t, f.result()) for t, f in self._requests.items() if _built(f)]
        idle = [(t, s) for t, s in ready if s.running == 0]
        excess = max(0, len(self._requests) - self.max_requests)
        for i, (token, state) in enumerate(idle):
            if i < excess or now - state.last_used >= self.idle_close_s:
                self._requests.pop(token, None)
                await state.aclose()
        if self._requests:
            self._schedule_sweep()

    def _build(self, token: str, ref: Any) -> RequestState:
        """Fetch the request's shared parts (once per process) and build its components (blocking)."""
        shared = self.fetch(ref)
        return RequestState(token, shared, build_parts(shared))


def _built(fut: asyncio.Future[RequestState]) -> bool:
    return fut.done() and not fut.cancelled() and fut.exception() is None


def _ray_get(ref: Any) -> SharedRequest:
    import ray

    shared: SharedRequest = ray.get(ref)  # what the driver put
    return shared


STATE = WorkerState()
