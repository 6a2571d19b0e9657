"""The gateway's MCP route (``POST /mcp``): an attempt's conversation served as a Model Context Protocol server.

Streamable HTTP transport, answered with ``application/json`` (never a stream): a POST carries one JSON-RPC 2.0
message (or a batch of them, as the 2025-03-26 revision allows); requests are answered in the body (200), a body of
notifications only with 202 and no body. Methods: ``initialize`` (the client's protocol version when it is one of
:data:`VERSIONS`, else the newest), ``ping``, ``tools/list``, ``tools/call``; notifications (``notifications/...``)
are accepted and ignored. No session id is issued: the attempt's token names the attempt. ``GET`` (a server stream)
and ``DELETE`` (ending a session) answer 405, as the transport allows a server without them to.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

from .conversing import FILE_NAME, ConversationTools, UnknownTool, tool_list

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")  # the revisions served, oldest first
SERVER_NAME = "agentcompass"
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
INSTRUCTIONS = (
    "The tools of this server act on the conversation you are having with a user. Send every message meant for "
    "the user with the tool send_message_to_user: its result is the user's reply."
)


class JsonRpcError(TypedDict):
    """The ``error`` of a JSON-RPC 2.0 response."""

    code: int
    message: str


class JsonRpcAnswer(TypedDict, total=False):
    """A JSON-RPC 2.0 response of the MCP server: its ``result``, or its ``error``."""

    jsonrpc: str
    id: object
    result: dict[str, object]
    error: JsonRpcError


def _error(id_: Any, code: int, message: str) -> JsonRpcAnswer:
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}


def _result(id_: Any, result: dict[str, object]) -> JsonRpcAnswer:
    return {"jsonrpc": "2.0", "id": id_, "result": result}


class McpServer:
    """The MCP server of one attempt's conversation (made on the attempt's first MCP request)."""

    def __init__(self, tools: ConversationTools, version: str = "") -> None:
        self.tools = tools
        self.version = version

    async def handle(self, body: Any) -> tuple[int, Any]:
        """The HTTP status and JSON answer (None: no body) of one POSTed body."""
        if isinstance(body, list):
            if not body:
                return 400, _error(None, INVALID_REQUEST, "an empty batch")
            answers = [a for a in [await self._one(m) for m in body] if a is not None]
            return (200, answers) if answers else (202, None)
        answer = await self._one(body)
        return (202, None) if answer is None else (200, answer)

    async def _one(self, message: Any) -> JsonRpcAnswer | None:
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return _error(None, INVALID_REQUEST, "not a JSON-RPC 2.0 message")
        if "method" not in message:  # a response to a request of ours: we send none
            return None
        method, id_ = message.get("method"), message.get("id")
        if "id" not in message:  # a notification: nothing to answer
            return None
        params = message.get("params") or {}
        if not isinstance(method, str) or not isinstance(params, dict):
            return _error(id_, INVALID_REQUEST, "method must be a string and params an object")
        if method == "initialize":
            return _result(id_, self._initialize(params))
        if method == "ping":
            return _result(id_, {})
        if method == "tools/list":
            return _result(id_, {"tools": tool_list(self.tools.conversation)})
        if method == "tools/call":
            return await self._call(id_, params)
        return _error(id_, METHOD_NOT_FOUND, f"method not found: {method}")

    def _initialize(self, params: dict[str, object]) -> dict[str, object]:
        asked = params.get("protocolVersion")
        return {
            "protocolVersion": asked if asked in VERSIONS else VERSIONS[-1],
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": SERVER_NAME, "version": self.version or "0"},
            "instructions": INSTRUCTIONS,
        }

    async def _call(self, id_: Any, params: dict[str, object]) -> JsonRpcAnswer:
        name, arguments = params.get("name"), params.get("arguments") or {}
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return _error(id_, INVALID_PARAMS, "tools/call needs a tool name and an object of arguments")
        try:
            outcome = await self.tools.call(name, arguments)
        except UnknownTool:
            return _error(id_, INVALID_PARAMS, f"unknown tool: {name}")
        return _result(id_, {"content": [{"type": "text", "text": outcome.text}], "isError": outcome.is_error})


def server_of(session: Any) -> McpServer | None:
    """The MCP server of a gateway session's attempt, made on first use; None while the attempt has no
    conversation (``ctx.conversation``) or the session belongs to no attempt (the standalone gateway)."""
    if session.mcp is None:
        ctx = session.attempt
        if ctx is None or ctx.conversation is None:
            return None
        record = Path(ctx.attempt_dir) / FILE_NAME if ctx.attempt_dir is not None else None
        session.mcp = McpServer(ConversationTools(ctx.conversation, record), _version())
    server: McpServer = session.mcp
    return server


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agentcompass")
    except PackageNotFoundError:
        return ""
