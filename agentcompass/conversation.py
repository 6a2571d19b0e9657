"""The contract of tool-use conversations: a typed transcript, the :class:`Conversation` a benchmark drives, and the
capabilities that join a conversing harness to a conversing benchmark.

A tool-use benchmark (τ²-bench, ...) owns the other side of the conversation: the tools' environment, a simulated
user (through the ``user`` model role) or scripted user turns, and the termination rules of its reference. A
harness that converses owns only the agent: it reads :attr:`Conversation.tools` and
:attr:`Conversation.system_prompt`, generates the agent's messages and hands each to :meth:`Conversation.send`,
which answers with what the agent sees next (the tools' results, or the user's reply) until
:attr:`Conversation.done`. The conversation records everything in its :class:`Transcript`, which becomes
:attr:`AgentResult.transcript <agentcompass.interfaces.AgentResult>` (``agent.transcript`` in the attempt's
``result.json``) and is what the benchmark grades. Any harness that declares :data:`CONVERSES` runs any benchmark
that declares :data:`CONVERSATION`, so harness x benchmark composition holds for tool use as it does for coding.

Plug-ins may import this module (as :mod:`agentcompass.interfaces`, :mod:`agentcompass.errors` and
:mod:`agentcompass.kit`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, NotRequired, Protocol, TypedDict, runtime_checkable

from agentcompass.interfaces import CONVERSATION, CONVERSES, MODEL_ROLES, Usage

__all__ = [
    "CONVERSATION",
    "CONVERSES",
    "MODEL_ROLES",
    "Conversation",
    "Message",
    "Termination",
    "ToolUse",
    "Transcript",
]


USER_TOOL = "send_message_to_user"  # the tool through which an agent that sees the conversation as tools (MCP)
# talks to the user: argument ``message`` (the text), result the user's reply


class Termination(enum.StrEnum):
    """Why a conversation ended (the values are τ²-bench's termination reasons where they exist)."""

    AGENT_STOP = "agent_stop"  # the agent ended it (a stop signal, a transfer)
    USER_STOP = "user_stop"  # the user (simulated or scripted) ended it
    MAX_STEPS = "max_steps"  # the benchmark's step limit
    TOO_MANY_ERRORS = "too_many_errors"  # the benchmark's limit of failed tool calls
    AGENT_ERROR = "agent_error"  # the agent's side failed (a model error, an invalid message)
    USER_ERROR = "user_error"  # the user's side failed
    HARNESS_LIMIT = "harness_limit"  # the harness stopped at a limit of its own (steps, cost, time)


class ToolUseRecord(TypedDict):
    """A :class:`ToolUse` as a transcript record holds it (:meth:`ToolUse.to_dict`)."""

    id: str
    name: str
    arguments: dict[str, object]
    requestor: str


class MessageRecord(TypedDict):
    """A :class:`Message` as a transcript record holds it (:meth:`Message.to_dict`); keys in the order written."""

    role: str
    content: str | None
    tool_calls: NotRequired[list[ToolUseRecord]]
    tool_call_id: NotRequired[str | None]
    requestor: NotRequired[str]
    error: NotRequired[bool]
    usage: NotRequired[dict[str, object]]  # Usage.to_dict()
    turn: NotRequired[int]


class TranscriptRecord(TypedDict):
    """A :class:`Transcript` as an attempt's result holds it (:meth:`Transcript.to_dict`)."""

    termination: str | None
    messages: list[MessageRecord]
    info: dict[str, object]


@dataclass
class ToolUse:
    """A function call inside a transcript, its arguments parsed. ``requestor``: whose call it is (``assistant``,
    or ``user`` for a user's own tools, as in τ²-bench's telecom)."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    requestor: str = "assistant"

    def to_dict(self) -> ToolUseRecord:
        return {"id": self.id, "name": self.name, "arguments": self.arguments, "requestor": self.requestor}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolUse:
        return cls(
            id=str(data.get("id", "")),
            name=str(data["name"]),
            arguments=dict(data.get("arguments") or {}),
            requestor=str(data.get("requestor", "assistant")),
        )


@dataclass
class Message:
    """One message of a transcript: ``role`` is system | user | assistant | tool.

    ``tool_calls``: the calls of an assistant (or user) message. A tool message answers one call: ``tool_call_id``,
    ``requestor`` (whose call), ``error`` (the call failed; ``content`` says how). ``usage``: the model call that
    produced the message, where a model did. ``turn``: the message's index in the transcript."""

    role: str
    content: str | None = None
    tool_calls: list[ToolUse] = field(default_factory=list)
    tool_call_id: str | None = None
    requestor: str = "assistant"
    error: bool = False
    usage: Usage | None = None
    turn: int | None = None

    def to_dict(self) -> MessageRecord:
        out: MessageRecord = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        if self.role == "tool":
            out["tool_call_id"] = self.tool_call_id
            out["requestor"] = self.requestor
            out["error"] = self.error
        if self.usage is not None:
            out["usage"] = self.usage.to_dict()
        if self.turn is not None:
            out["turn"] = self.turn
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        usage = data.get("usage")
        return cls(
            role=str(data["role"]),
            content=data.get("content"),
            tool_calls=[ToolUse.from_dict(c) for c in data.get("tool_calls") or []],
            tool_call_id=data.get("tool_call_id"),
            requestor=str(data.get("requestor", "assistant")),
            error=bool(data.get("error", False)),
            usage=Usage.from_dict(usage) if usage is not None else None,
            turn=data.get("turn"),
        )


@dataclass
class Transcript:
    """The whole conversation of one attempt, in order, and why it ended (a :class:`Termination` value, or None
    while it runs)."""

    messages: list[Message] = field(default_factory=list)
    termination: str | None = None
    info: dict[str, Any] = field(default_factory=dict)  # the benchmark's facts (e.g. the seed, the user's model)

    def append(self, message: Message) -> Message:
        message.turn = len(self.messages)
        self.messages.append(message)
        return message

    def to_dict(self) -> TranscriptRecord:
        return {
            "termination": self.termination,
            "messages": [m.to_dict() for m in self.messages],
            "info": self.info,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Transcript:
        return cls(
            messages=[Message.from_dict(m) for m in data.get("messages") or []],
            termination=data.get("termination"),
            info=dict(data.get("info") or {}),
        )


@runtime_checkable
class Conversation(Protocol):
    """One attempt's conversation, the benchmark's side of it. Made by the benchmark's :data:`CONVERSATION`
    capability before the agent phase; handed to the harness as ``ctx.conversation``."""

    tools: list[dict[str, Any]]  # the agent's function tools, OpenAI chat form ({type: function, function: {...}});
    # they may grow during the conversation (BFCL's held-out functions): a harness reads them before each model call
    system_prompt: str | None  # the agent's system prompt as the benchmark's reference agent has it; None: none
    transcript: Transcript
    done: bool

    async def start(self) -> list[Message]:
        """The conversation's opening: the messages the agent's history starts with (an assistant greeting the
        reference agent sends, the user's first turn, a task's earlier messages). Recorded in the transcript."""
        ...

    async def send(self, message: Message) -> list[Message]:
        """The agent's next message (role assistant: text, tool calls or both; ``usage`` set by the harness). Returns
        what the agent sees next: one tool message per call, or the other side's reply; ``[]`` once :attr:`done`.
        Records all of it and applies the benchmark's termination rules (sets :attr:`done` and
        ``transcript.termination``). Raises ModelError from the user's model role (the attempt fails)."""
        ...

    def stop(self, reason: str) -> None:
        """The harness ends the conversation (a :class:`Termination` value, e.g. its own step limit)."""
        ...
