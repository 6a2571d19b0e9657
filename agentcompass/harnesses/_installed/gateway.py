"""The model endpoint an agent program is given: the attempt's gateway endpoint (base URL reachable from inside
the environment, a per-attempt token, the request's model name). The real API key never enters the environment."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .conversing import McpServer, server


@dataclass(frozen=True)
class Endpoint:
    """What the agent is told: ``root`` (no ``/v1``), ``v1`` (``root + "/v1"``), the token and the model name."""

    root: str
    token: str
    model: str
    raw: Any = None  # the gateway's own endpoint object

    @property
    def v1(self) -> str:
        return self.root + "/v1"

    @property
    def mcp(self) -> McpServer:
        """The attempt's conversation as an MCP server on the same gateway (served while it has one)."""
        return server(self.root, self.token)


def _root(url: str) -> str:
    url = url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


async def endpoint(ctx: Any, env: Any, model_name: str) -> Endpoint:
    """The attempt's gateway endpoint for ``env`` (``ctx.gateway``; its errors, GatewayUnavailableError and
    GatewayUnreachableError, pass through)."""
    got = await ctx.gateway(env)
    return Endpoint(_root(str(got.base_url)), str(got.token), str(got.model or model_name), got)
