"""Request-scoped services: what lives exactly as long as one request (a model gateway, a tool server).

A service is made by a factory handed in through :class:`~agentcompass._orchestrator.scheduling.Hooks` (``services``),
started once the request is prepared and before its first attempt, and closed on every path the request can end
by (completed, failed, timeout, cancelled, a failed start of a later service), in reverse order of starting.
Attempts reach a started service as ``rt.services[name]``.

A service may also take part in each attempt (:class:`PerAttempt`): its ``attempt(ctx, model, label, config)``
gives the attempt's part (:class:`AttemptService`, or None when it has none for this attempt), which attaches
itself to the attempt's context (the model gateway sets ``ctx.gateway``), may meet an error that stops the request
(``fatal``) or a per-attempt limit that refused a call (``limit_hit``), and is closed when the attempt ends. The
attempt sees only :class:`AttemptServices`, the parts of all its request's services.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from agentcompass.errors import one_line

if TYPE_CHECKING:
    from .runtime import RequestRuntime


class RequestService(Protocol):
    """One service of one request."""

    name: str  # its key in ``RequestRuntime.services``

    async def start(self) -> None:
        """Before the request's first attempt; an exception fails the request before any attempt runs."""
        ...

    async def aclose(self) -> None:
        """After the request's last attempt, on every path; idempotent."""
        ...


class AttemptService(Protocol):
    """One service's part in one attempt."""

    @property
    def fatal(self) -> BaseException | None:
        """An error met for this attempt that stops the request (a dead model endpoint), else None."""
        ...

    @property
    def limit_hit(self) -> str | None:
        """The per-attempt limit that refused a call of this attempt (``max_model_calls`` ...), else None."""
        ...

    def close(self) -> None:
        """The attempt ended: its part stops working (idempotent)."""
        ...


@runtime_checkable
class PerAttempt(Protocol):
    """A request service that takes part in each attempt (optional: a service without ``attempt`` does not)."""

    def attempt(self, ctx: Any, model: Any, label: str, config: Any) -> AttemptService | None:
        """The part of attempt ``ctx`` (its AttemptContext, which the part attaches itself to), whose model
        client is ``model`` (None: the request has none), named ``label`` in logs; ``config``: the request's
        RequestConfig. Nothing may start before the attempt uses it."""
        ...


class AttemptServices:
    """The parts of the request's services in one attempt, in the order the services started."""

    __slots__ = ("parts",)

    def __init__(self, parts: Iterable[AttemptService] = ()) -> None:
        self.parts = tuple(parts)

    @classmethod
    def of(cls, services: Mapping[str, Any], ctx: Any, model: Any, label: str, config: Any) -> AttemptServices:
        if not services:
            return _NONE
        made = (s.attempt(ctx, model, label, config) for s in services.values() if isinstance(s, PerAttempt))
        return cls(p for p in made if p is not None)

    @property
    def fatal(self) -> BaseException | None:
        return next((p.fatal for p in self.parts if p.fatal is not None), None)

    @property
    def limit_hit(self) -> str | None:
        return next((p.limit_hit for p in self.parts if p.limit_hit is not None), None)

    def close(self) -> None:
        for part in self.parts:
            part.close()


_NONE = AttemptServices()  # an attempt of a request without services (it has no parts: nothing to close)

ServiceFactory = Callable[["RequestRuntime"], "RequestService | None"]  # None: not needed by this request


class Services:
    """The started services of one request, closed in reverse order."""

    def __init__(self, factories: Sequence[ServiceFactory], logger: logging.Logger) -> None:
        self.factories, self.logger = tuple(factories), logger
        self.started: list[RequestService] = []

    async def start(self, rt: RequestRuntime) -> None:
        for factory in self.factories:
            service = factory(rt)
            if service is None:
                continue
            if service.name in rt.services:
                raise RuntimeError(f"two request services are named {service.name!r}")
            self.started.append(service)  # closed even when its own start fails half-way
            await service.start()
            rt.services[service.name] = service

    async def aclose(self) -> None:
        while self.started:
            service = self.started.pop()
            try:
                await service.aclose()
            except Exception as exc:  # one service failing to close never keeps the others open
                self.logger.warning("request service %s failed to close: %s", service.name, one_line(exc))
