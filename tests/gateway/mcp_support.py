"""An MCP client session on the official Python SDK (``mcp``, a test extra) against the gateway's MCP route, and a
harness that converses through it from this host (the whole attempt wiring without an agent program)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from agentcompass.conversation import USER_TOOL
from agentcompass.interfaces import AgentResult

# the agent's side of the scripted calculator conversation: (tool, arguments) in order
SCRIPT: list[tuple[str, dict[str, Any]]] = [
    ("add", {"a": 2, "b": 3}),
    (USER_TOOL, {"message": "The sum is 5."}),
    ("reverse", {"text": "stressed"}),
    (USER_TOOL, {"message": "It is desserts."}),
    (USER_TOOL, {"message": "Anything else?"}),
    ("add", {"a": 1, "b": 1}),  # after the end
]


@contextlib.asynccontextmanager
async def client(url: str, token: str) -> AsyncIterator[Any]:
    """An initialized ``mcp.ClientSession`` on the streamable HTTP transport, the token as a bearer credential."""
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


class McpScriptConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")


class McpScriptHarness:
    """Converses through the gateway's MCP route from this host: initialize, list the tools, then :data:`SCRIPT`;
    what each call answered is kept in ``info.answers``."""

    requires_model: ClassVar[bool] = True
    converses: ClassVar[bool] = True
    config_class = McpScriptConfig

    def __init__(self, config: McpScriptConfig, ctx: Any) -> None:
        self.config = config

    async def run(self, task: Any, env: Any, model: Any, ctx: Any) -> AgentResult:
        opening = await ctx.conversation.start()
        endpoint = await ctx.gateway(None)
        answers = []
        async with client(endpoint.mcp_url, endpoint.token) as session:
            tools = [t.name for t in (await session.list_tools()).tools]
            for name, arguments in SCRIPT:
                result = await session.call_tool(name, arguments)
                answers.append({"text": text_of(result), "is_error": bool(result.is_error)})
        info = {"tools": tools, "answers": answers, "opening": [m.content for m in opening]}
        return AgentResult(n_turns=len(SCRIPT), info=json.loads(json.dumps(info)))
