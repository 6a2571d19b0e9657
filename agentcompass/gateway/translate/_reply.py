"""The neutral form of a model reply that every translation goes through: blocks (text, thinking, tool calls) in
order, a stop reason and token counts. Readers (``_read_*``) make it from an endpoint's reply, writers
(``_write_*``) turn it into the agent's API; streams go through the same steps one event at a time."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any

# neutral stop reasons (Anthropic's words, plus content_filter)
END, MAX_TOKENS, TOOL_USE, STOP_SEQUENCE, REFUSAL, CONTENT_FILTER, PAUSE = (
    "end_turn",
    "max_tokens",
    "tool_use",
    "stop_sequence",
    "refusal",
    "content_filter",
    "pause_turn",
)


@dataclass
class Tokens:
    """``input``: every prompt token (cached ones included); ``cached``: read from the prompt cache;
    ``cache_write``: written to it; ``output``: completion tokens (reasoning included)."""

    input: int = 0
    cached: int = 0
    cache_write: int = 0
    output: int = 0
    reasoning: int = 0


@dataclass
class Block:
    kind: str  # "text" | "thinking" | "redacted_thinking" | "tool"
    text: str = ""  # the text, the thinking, or a tool call's arguments (JSON text)
    id: str = ""  # a tool call's id
    name: str = ""  # a tool call's name
    signature: str = ""  # a thinking block's signature (Anthropic)


@dataclass
class Reply:
    id: str = ""
    model: str = ""
    created: int = field(default_factory=lambda: int(time.time()))
    blocks: list[Block] = field(default_factory=list)
    stop: str = END
    stop_sequence: str | None = None
    usage: Tokens = field(default_factory=Tokens)
    usage_known: bool = False

    def text(self) -> str:
        return "".join(b.text for b in self.blocks if b.kind == "text")

    def tools(self) -> list[Block]:
        return [b for b in self.blocks if b.kind == "tool"]


def new_id(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:24]}"


def as_int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0
