"""An agent program on a tool-use benchmark: the conversation reaches it as an MCP server, its prompt tells it so.

The attempt's gateway serves ``ctx.conversation`` over MCP (streamable HTTP at ``<gateway>/mcp``, the attempt's token
as a bearer credential): the conversation's tools plus :data:`~agentcompass.conversation.USER_TOOL`. Each agent is
given that server (named :data:`SERVER`) the way it takes MCP servers, and a prompt made of the conversation's system
prompt, how to talk to the user, and the opening messages (:meth:`Conversation.start`). When the program exits
before the conversation has ended, the agent has ended it (``agent_stop``). docs/agents.md, "Tool-use benchmarks".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agentcompass.conversation import USER_TOOL, Conversation, Message, Termination

SERVER = "agentcompass"  # the MCP server's name in every agent's configuration
WORKDIR = "/tmp/agentcompass-conversation"  # where the agent runs when the task's workdir is the root
HOW = (
    "You are in a conversation with a user, and you act only through the tools of the MCP server "
    f'"{SERVER}". The user sees nothing you write outside those tools: send every message meant for the user '
    f"with its tool {USER_TOOL} (argument message); its result is the user's reply. Use the server's other tools "
    "to act for the user. Keep going until a tool answers that the conversation has ended, then stop."
)


@dataclass(frozen=True)
class McpServer:
    """The attempt's MCP server as the agent is told: its name, URL (reachable from the environment) and token."""

    name: str
    url: str
    token: str

    @property
    def authorization(self) -> str:
        return f"Bearer {self.token}"


def server(root: str, token: str) -> McpServer:
    """The MCP server on the gateway whose root URL (no ``/v1``) is ``root``."""
    return McpServer(SERVER, root.rstrip("/") + "/mcp", token)


def _line(message: Message) -> str:
    who = {"user": "User", "assistant": "You", "tool": "Tool result", "system": "System"}.get(message.role, "?")
    parts = [message.content] if message.content else []
    for call in message.tool_calls:
        parts.append(f"[called {call.name} with {json.dumps(call.arguments, ensure_ascii=False)}]")
    return f"{who}: " + " ".join(parts)


async def prompt(conversation: Conversation) -> str:
    """The agent's instruction: the system prompt, :data:`HOW`, then the conversation's opening (recorded in its
    transcript by :meth:`Conversation.start`)."""
    opening = await conversation.start()
    parts = [conversation.system_prompt] if conversation.system_prompt else []
    parts.append(f"# How to talk to the user\n{HOW}")
    if opening:
        parts.append("# The conversation so far\n" + "\n".join(_line(m) for m in opening))
    return "\n\n".join(parts) + "\n"


def workdir(task_workdir: str) -> str:
    """The agent's working directory on a tool-use benchmark: the task's, unless that is ``/`` (τ²-bench's), where
    an empty directory of its own is used (agents index or snapshot their working directory: opencode's snapshot of
    the whole file system costs seconds per step)."""
    return WORKDIR if task_workdir.rstrip("/") == "" else task_workdir


def end(conversation: Conversation | Any) -> None:
    """The program has exited: a conversation still open was ended by the agent."""
    if conversation is not None and not conversation.done:
        conversation.stop(Termination.AGENT_STOP.value)
