"""The model gateway as an attempt sees it (``ctx.gateway(env)``), without importing it.

The gateway is a request-scoped service (:mod:`.services`) named :data:`GATEWAY`, handed in by the SDK
(``Hooks.services``); the orchestrator reaches it only through the protocols below. Each attempt gets its own
session (token) on its first ``ctx.gateway(env)`` call, closed when the attempt ends. An endpoint that the gateway
found dead (fail-fast) stops the request when the agent phase ends.
"""

from __future__ import annotations

from typing import Any, Protocol

from agentcompass.interfaces import GatewayEndpoint

GATEWAY = "gateway"  # the service's name in RequestRuntime.services


class AttemptGateway(Protocol):
    """One attempt's use of the request's gateway."""

    async def endpoint(self, env: Any = None) -> GatewayEndpoint:
        """The attempt's endpoint as reached from inside ``env`` (None: from this host)."""
        ...

    @property
    def fatal(self) -> BaseException | None:
        """An error met by the gateway that stops the request (a dead endpoint), else None."""
        ...

    @property
    def limit_hit(self) -> str | None:
        """The gateway limit that refused a call of this attempt (``max_model_calls`` ...), else None."""
        ...

    def close(self) -> None:
        """The attempt's token stops working (idempotent)."""
        ...


class GatewayService(Protocol):
    name: str

    def attempt(self, model: Any, label: str, config: Any = None, ctx: Any = None) -> AttemptGateway:
        """A new attempt's gateway use (nothing starts until it asks for an endpoint); ``config``: the request's
        RequestConfig (its ``gateway`` section); ``ctx``: the attempt's AttemptContext (a tool-use benchmark's
        conversation, ``ctx.conversation``, is served to the agent over MCP on the same endpoint)."""
        ...


def attempt_gateway(
    services: dict[str, Any], model: Any, label: str, config: Any = None, ctx: Any = None
) -> AttemptGateway | None:
    """The attempt's gateway use, None when the request has no model or no gateway service."""
    service = services.get(GATEWAY)
    if service is None or model is None:
        return None
    return service.attempt(model, label, config, ctx)
