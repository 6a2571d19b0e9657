"""Request-scoped services: what lives exactly as long as one request (a model gateway, a request-wide budget).

A service is made by a factory handed in through :class:`~agentcompass._orchestrator.scheduling.Hooks` (``services``),
started once the request is prepared and before its first attempt, and closed on every path the request can end
by (completed, failed, timeout, cancelled, a failed start of a later service), in reverse order of starting.
Attempts reach a started service as ``rt.services[name]``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

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
