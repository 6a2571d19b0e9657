"""The settings of an Anthropic Messages request beyond the plain conversation, read for a translation: the effort
(``thinking``, ``output_config.effort``, a system message's per-turn ``output_config``), the output format,
``context_management`` edits, ``role: "system"`` messages inside ``messages``, and which tools the model sees
(``defer_loading`` tools only once a ``tool_reference`` block has loaded them).
"""

from __future__ import annotations

from typing import Any

from agentcompass.models.wire import AnthropicMessage, AnthropicRequest, AnthropicTool, ChatResponseFormat

from . import _common
from ._common import Refuser

EFFORTS = ("low", "medium", "high", "xhigh", "max")
THINKING_KEYS = frozenset({"type", "budget_tokens", "display"})
TOOL_KEYS = frozenset(
    {"name", "description", "input_schema", "type", "cache_control", "strict", "defer_loading", "eager_input_streaming"}
)
SYSTEM_KEYS = frozenset({"role", "content", "clear_at", "output_config"})
# context-management edits that translate (the rest is refused): what they would clear is never sent
NOTHING_TO_CLEAR = {"clear_thinking_20251015": "earlier turns' thinking is not sent to an {upstream} endpoint"}


def _level(value: Any, what: str, refuse: Refuser) -> str | None:
    if value is not None and value not in EFFORTS:
        raise refuse(f"{what} {value!r} (one of {', '.join(EFFORTS)})")
    return value


def _turn_effort(messages: list[AnthropicMessage], refuse: Refuser) -> str | None:
    """The effort a ``role: "system"`` message sets for the current turn (one after the last user message)."""
    level = None
    for i, message in enumerate(messages):
        if message.get("role") == "user":
            level = None
        elif message.get("role") == "system":
            config = message.get("output_config") or {}
            refuse.unknown_keys(config, {"effort"}, f"messages[{i}].output_config.")
            level = _level(config.get("effort"), f"messages[{i}].output_config.effort", refuse) or level
    return level


def effort(agent: AnthropicRequest, refuse: Refuser, warnings: list[str]) -> str | None:
    """OpenAI's ``reasoning_effort`` for the request: the effort asked (``output_config.effort``, or the current
    turn's system message's), else ``thinking.budget_tokens`` in bands (<= 2048 low, <= 8192 medium, else high);
    None with thinking disabled or adaptive without an effort (the endpoint's own default)."""
    thinking = agent.get("thinking") or {}
    refuse.unknown_keys(thinking, THINKING_KEYS, "thinking.")
    kind = thinking.get("type")
    if kind not in (None, "disabled", "enabled", "adaptive"):
        raise refuse(f"thinking type {kind!r}")
    config = agent.get("output_config") or {}
    refuse.unknown_keys(config, {"effort", "format"}, "output_config.")
    level = _turn_effort(agent.get("messages") or [], refuse) or _level(
        config.get("effort"), "output_config.effort", refuse
    )
    if kind == "disabled":
        if level:
            warnings.append(
                f"output_config.effort {level!r} not sent: thinking is disabled, and OpenAI Chat's reasoning_effort "
                "sets how much the model thinks (gateway translation)"
            )
        return None
    if level:
        return level
    if kind == "enabled":
        budget = int(thinking.get("budget_tokens") or 0)
        return "low" if budget <= 2048 else "medium" if budget <= 8192 else "high"
    return None


def response_format(agent: AnthropicRequest, refuse: Refuser) -> ChatResponseFormat | None:
    """``output_config.format`` (a JSON schema the reply must follow) as Chat's ``response_format``."""
    fmt = (agent.get("output_config") or {}).get("format")
    if fmt is None:
        return None
    if fmt.get("type") != "json_schema" or not isinstance(fmt.get("schema"), dict):
        raise refuse(f"output_config.format type {fmt.get('type')!r}")
    refuse.unknown_keys(fmt, {"type", "schema"}, "output_config.format.")
    return {"type": "json_schema", "json_schema": {"name": "output", "schema": fmt["schema"], "strict": True}}


def context_edits(agent: AnthropicRequest, upstream: str, refuse: Refuser, warnings: list[str]) -> None:
    """``context_management``: an edit whose target the translation never sends is a warning (nothing to clear);
    one the endpoint would have to apply (clearing tool results past a threshold, compaction) is refused."""
    config = agent.get("context_management")
    if config is None:
        return
    refuse.unknown_keys(config, {"edits"}, "context_management.")
    for i, edit in enumerate(config.get("edits") or []):
        kind = edit.get("type")
        if kind not in NOTHING_TO_CLEAR:
            raise refuse(
                f"context_management.edits[{i}].type {kind!r} (the endpoint cannot apply it; only "
                f"{', '.join(NOTHING_TO_CLEAR)} translates)"
            )
        why = NOTHING_TO_CLEAR[kind].format(upstream=upstream)
        warnings.append(f"context_management edit {kind!r} has nothing to clear: {why} (gateway translation)")


def system_message(messages: list[AnthropicMessage], i: int, refuse: Refuser) -> str | None:
    """The text of ``messages[i]``, a ``role: "system"`` message, or None when the model no longer sees it
    (``clear_at: next_user_message`` with a later user message) or it carries only settings."""
    message = messages[i]
    refuse.unknown_keys(message, SYSTEM_KEYS, f"messages[{i}].")
    clear_at = message.get("clear_at")
    if clear_at not in (None, "never", "next_user_message"):
        raise refuse(f"messages[{i}].clear_at {clear_at!r}")
    if clear_at == "next_user_message" and any(m.get("role") == "user" for m in messages[i + 1 :]):
        return None
    text = _common.text_of(message.get("content"), ("text",), refuse, f"messages[{i}] (system)")
    return text or None


def loaded_tools(messages: list[AnthropicMessage]) -> set[str]:
    """The deferred tools that ``tool_reference`` blocks (in tool results) have loaded."""
    names = set()
    for message in messages:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            inner = block.get("content") if block.get("type") == "tool_result" else None
            for part in inner if isinstance(inner, list) else []:
                if isinstance(part, dict) and part.get("type") == "tool_reference":
                    names.add(str(part.get("tool_name")))
    return names


def visible(tool: AnthropicTool, loaded: set[str], refuse: Refuser) -> bool:
    """Whether the model sees ``tool``: a ``defer_loading`` tool only once loaded; unknown tool keys refused."""
    refuse.unknown_keys(tool, TOOL_KEYS, f"tools[{tool.get('name')!r}].")
    return not tool.get("defer_loading") or tool.get("name") in loaded
