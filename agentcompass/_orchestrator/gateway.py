"""The request-scoped model gateway as an attempt sees it (``ctx.gateway(env)``).

The request holds one :class:`~agentcompass.gateway.service.GatewayHolder` (started by the first attempt that asks,
closed with the request); each attempt gets its own session (token) on the first call, closed when the attempt
ends. An endpoint that the gateway found dead (fail-fast) stops the request when the agent phase ends.
"""

from __future__ import annotations

from typing import Any

from agentcompass.errors import GatewayUnavailableError
from agentcompass.interfaces import GatewayEndpoint


def request_gateway(logger: Any) -> Any:
    """The holder of a request's gateway (nothing starts until an attempt asks)."""
    from agentcompass.gateway.service import GatewayHolder

    return GatewayHolder(logger)


class AttemptGateway:
    def __init__(self, holder: Any, model: Any, label: str) -> None:
        self.holder, self.model, self.label = holder, model, label
        self.session: Any = None
        self.gateway: Any = None

    async def endpoint(self, env: Any = None) -> GatewayEndpoint:
        if self.holder is None or self.model is None:
            raise GatewayUnavailableError(f"{self.label}: no model gateway: the request has no model (model=none)")
        if self.session is None:
            self.gateway = await self.holder.get()
            self.session = self.gateway.open_session(self.model, self.label)
        return await self.gateway.endpoint(self.session, env)

    @property
    def fatal(self) -> BaseException | None:
        """An error met by the gateway that stops the request (a dead endpoint), else None."""
        return None if self.session is None else self.session.fatal

    def close(self) -> None:
        """The attempt's token stops working."""
        if self.session is not None:
            self.gateway.close_session(self.session)
