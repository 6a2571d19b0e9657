"""What the request translations share: refusing what has no counterpart, hosted tools, tool arguments."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agentcompass.errors import TranslationError
from agentcompass.models.wire import AnthropicTool, ResponsesTool

# OpenAI Responses tools that OpenAI runs itself (no counterpart on another endpoint)
HOSTED_RESPONSES_TOOLS = (
    "web_search",
    "web_search_preview",
    "file_search",
    "code_interpreter",
    "image_generation",
    "computer_use_preview",
    "mcp",
)
# Anthropic server tools (run by Anthropic): type prefixes
HOSTED_ANTHROPIC_TOOLS = ("web_search_", "web_fetch_", "code_execution_")
# a Responses "custom" (free-form) tool becomes a function tool taking one string
CUSTOM_INPUT_SCHEMA = {
    "type": "object",
    "properties": {"input": {"type": "string", "description": "the tool's input, free-form"}},
    "required": ["input"],
    "additionalProperties": False,
}


def where(agent: str, upstream: str) -> str:
    return f"the model gateway cannot translate this {agent} request to {upstream} (the endpoint's protocol)"


class Refuser:
    """Raises :class:`TranslationError` naming the field, with the direction in the message."""

    def __init__(self, agent: str, upstream: str) -> None:
        self.agent, self.upstream = agent, upstream

    def __call__(self, what: str) -> TranslationError:
        return TranslationError(f"{where(self.agent, self.upstream)}: {what}")

    def unknown_keys(self, body: Mapping[str, object], known: set[str] | frozenset[str], prefix: str = "") -> None:
        extra = sorted(prefix + k for k, v in body.items() if k not in known and v is not None)
        if extra:
            raise self(f"unsupported field(s) {', '.join(extra)}")


def hosted_responses_tool(tool: ResponsesTool) -> bool:
    kind = str(tool.get("type") or "")
    return any(kind == h or kind.startswith(h + "_") for h in HOSTED_RESPONSES_TOOLS)


def hosted_anthropic_tool(tool: AnthropicTool) -> bool:
    return str(tool.get("type") or "").startswith(HOSTED_ANTHROPIC_TOOLS)


def dropped(tool: ResponsesTool | AnthropicTool) -> str:
    """The warning recorded for a hosted tool left out of the translated request."""
    return f"hosted tool {tool.get('type')!r} dropped: the endpoint cannot run it (gateway translation)"


def arguments(text: str | None) -> dict[str, object]:
    """A tool call's JSON arguments as an object (Anthropic's ``input``); text that is not an object is kept
    under ``_raw`` rather than lost."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {"_raw": text}
    return value if isinstance(value, dict) else {"_raw": text}


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def text_of(content: Any, kinds: tuple[str, ...], refuse: Refuser, what: str) -> str:
    """The text of ``content``: a string, or a list of parts each of a type in ``kinds`` (others refused)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    out = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind not in kinds:
            raise refuse(f"{what}: content part type {kind!r} (only {', '.join(kinds)})")
        out.append(part.get("text") or "")
    return "".join(out)
