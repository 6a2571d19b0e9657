"""A conversation seen as tools (what the gateway's MCP route serves): the conversation's own function tools plus
:data:`~agentcompass.conversation.USER_TOOL`, each call one message of the agent, and the record of every call.

A call of a conversation tool is sent as ``Message(role="assistant", tool_calls=[ToolUse(...)])``; its result is the
tool message's content (an error when the call failed). A message to the user is sent as ``Message(role="assistant",
content=text)``; its result is the user's reply. The conversation records both in its transcript; every call is
also a line of ``<attempt dir>/mcp_calls.jsonl`` (docs/gateway.md, "Conversations over MCP"). Calls are sent one at
a time (an agent's parallel calls wait for each other), in the order they arrive.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict

from agentcompass.conversation import USER_TOOL, Conversation, Message, ToolUse
from agentcompass.errors import one_line

FILE_NAME = "mcp_calls.jsonl"
ENDED = "The conversation has ended: there is nothing more to do; stop now."
FAILED = "The conversation has ended because of an error on the user's side; stop now."
USER_TOOL_DESCRIPTION = (
    "Send a message to the user you are talking with and wait for the user's reply, which this tool returns. "
    "This is the only way to talk to the user: text you write outside this tool never reaches them."
)
USER_TOOL_SCHEMA = {
    "type": "object",
    "properties": {"message": {"type": "string", "description": "The message to the user."}},
    "required": ["message"],
}


class UnknownTool(LookupError):
    """A call of a tool the conversation does not have."""


@dataclass
class Outcome:
    """What a call answers: the text the agent sees and whether the call failed."""

    text: str
    is_error: bool = False


class McpTool(TypedDict):
    """A tool as MCP's ``tools/list`` gives it."""

    name: str
    description: str
    inputSchema: object


def tool_list(conversation: Conversation) -> list[McpTool]:
    """The conversation's tools in the MCP form (``name``, ``description``, ``inputSchema``), then the user tool."""
    out: list[McpTool] = []
    for tool in conversation.tools or []:
        fn = tool.get("function", tool)
        schema = fn.get("parameters") or {"type": "object", "properties": {}}
        out.append({"name": fn["name"], "description": fn.get("description") or "", "inputSchema": schema})
    out.append({"name": USER_TOOL, "description": USER_TOOL_DESCRIPTION, "inputSchema": USER_TOOL_SCHEMA})
    return out


class ConversationTools:
    """One attempt's conversation as tools; ``record``: the ``mcp_calls.jsonl`` to append to (None: none)."""

    def __init__(self, conversation: Conversation, record: Path | None = None) -> None:
        self.conversation = conversation
        self.record = record
        self.failure: BaseException | None = None  # the error the conversation raised (the attempt fails with it)
        self.names = {t["name"] for t in tool_list(conversation)}
        self._lock = asyncio.Lock()
        self._seq = 0

    async def call(self, name: str, arguments: dict[str, object]) -> Outcome:
        """The answer to one call. Raises UnknownTool (before anything is sent); an error of the conversation
        (the user's model) is kept in :attr:`failure` and answered as the end of the conversation."""
        if name not in self.names:
            raise UnknownTool(name)
        async with self._lock:
            self._seq += 1
            seq, began, start = self._seq, datetime.now(UTC).isoformat(timespec="milliseconds"), time.monotonic()
            turns = len(self.conversation.transcript.messages)
            error: str | None = None
            try:
                outcome = await self._send(seq, name, arguments)
            except Exception as exc:  # the user's side failed: the attempt fails with it once the agent is done
                self.failure = self.failure or exc
                error, outcome = one_line(exc), Outcome(FAILED, True)
            line = {
                "seq": seq,
                "started": began,
                "duration_s": round(time.monotonic() - start, 4),
                "tool": name,
                "arguments": arguments,
                "result": outcome.text,
                "is_error": outcome.is_error,
                "turns": list(range(turns, len(self.conversation.transcript.messages))),
                "done": self.conversation.done,
            }
            self._write({**line, "error": error} if error else line)
            return outcome

    async def _send(self, seq: int, name: str, arguments: dict[str, object]) -> Outcome:
        conversation = self.conversation
        if self.failure is not None:
            return Outcome(FAILED, True)
        if conversation.done:
            return Outcome(ENDED, True)
        if name == USER_TOOL:
            text = arguments.get("message")
            if not isinstance(text, str):
                return Outcome(f"{USER_TOOL}: the argument 'message' must be a string", True)
            replies = await conversation.send(Message(role="assistant", content=text))
            said = [m.content for m in replies if m.role != "tool" and m.content]
            reply = "\n\n".join(said) if said else ""
            if conversation.done:
                return Outcome(f"{reply}\n\n({ENDED})" if reply else ENDED)
            return Outcome(reply)
        call = ToolUse(id=f"mcp-{seq}", name=name, arguments=dict(arguments))
        replies = await conversation.send(Message(role="assistant", tool_calls=[call]))
        answer = next((m for m in replies if m.role == "tool" and m.tool_call_id == call.id), None)
        if answer is None:
            answer = next((m for m in replies if m.role == "tool"), None)
        if answer is None:
            return Outcome(ENDED, True)
        text = answer.content or ""
        return Outcome(f"{text}\n\n({ENDED})" if conversation.done else text, answer.error)

    def _write(self, line: dict[str, object]) -> None:
        if self.record is None:
            return
        text = json.dumps(line, ensure_ascii=False, default=str, separators=(",", ":")) + "\n"
        self.record.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.record, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)
