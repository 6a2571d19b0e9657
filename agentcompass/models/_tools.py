"""Function tools, tool calls and tool results in each protocol's own form.

The :class:`~agentcompass.interfaces.ModelClient` interface speaks the OpenAI chat form everywhere: tools
``{type: "function", function: {name, description, parameters}}``, an assistant message's ``tool_calls``
``[{id, type: "function", function: {name, arguments}}]`` and ``{role: "tool", tool_call_id, content}``
results. This module turns them into:

- openai-responses: tools ``{type: "function", name, description, parameters}``; a call becomes a
  ``function_call`` input item (after the assistant's text, if any), a result a ``function_call_output``
  item; ``tool_choice`` ``{type: "function", name}``;
- anthropic-messages: tools ``{name, description, input_schema}``; a call becomes a ``tool_use`` block of the
  assistant message, a result a ``tool_result`` block of the next user message (tool results and the user turn
  next to them are joined into one message, so every call is answered in the message after it);
  ``tool_choice`` ``auto`` -> ``{type: auto}``, ``required`` -> ``{type: any}``, ``none`` -> ``{type: none}``,
  a named function -> ``{type: tool, name}``;
  ``parallel_tool_calls: false`` -> ``disable_parallel_tool_use`` (true is the API's default).

And back: the calls of a reply as :class:`~agentcompass.interfaces.ToolCall` (``arguments`` kept as the JSON
text; Anthropic's parsed ``input`` is serialized with ``json.dumps``).
"""

from __future__ import annotations

import json
from typing import Any

from agentcompass.errors import ConfigError
from agentcompass.interfaces import ToolCall

from ._shapes.chat import ChatMessage
from ._shapes.messages import AnthropicTool

CHAT_MESSAGE_KEYS = ("role", "content", "name", "tool_calls", "tool_call_id")


def _function(tool: dict[str, Any]) -> dict[str, Any]:
    """The ``function`` part of a chat-form tool (a ConfigError naming the tool otherwise)."""
    fn = tool.get("function") if isinstance(tool, dict) else None
    if (
        not isinstance(tool, dict)
        or tool.get("type", "function") != "function"
        or not isinstance(fn, dict)
        or not isinstance(fn.get("name"), str)
    ):
        shown = repr(tool) if len(repr(tool)) <= 80 else repr(tool)[:77] + "..."
        raise ConfigError(f"tools: {shown} is not a function tool {{type: function, function: {{name, ...}}}}")
    return fn


# --------------------------------------------------------------------------- openai-chat


def chat_messages(messages: list[ChatMessage]) -> list[dict[str, object]]:
    """Messages as sent on openai-chat: the chat keys only, keys whose value is None left out."""
    return [{k: m.get(k) for k in CHAT_MESSAGE_KEYS if m.get(k) is not None} for m in messages]


def chat_tool_calls(message: Any) -> list[ToolCall]:
    calls = getattr(message, "tool_calls", None) or []
    out = []
    for call in calls:
        fn = getattr(call, "function", None)
        out.append(
            ToolCall(
                id=str(getattr(call, "id", "") or ""),
                name=str(getattr(fn, "name", "") or ""),
                arguments=str(getattr(fn, "arguments", "") or ""),
            )
        )
    return out


# --------------------------------------------------------------------------- openai-responses


def responses_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for tool in tools:
        fn = _function(tool)
        out.append(
            {"type": "function", **{k: fn[k] for k in ("name", "description", "parameters", "strict") if k in fn}}
        )
    return out


def responses_tool_choice(choice: Any) -> Any:
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        return {"type": "function", "name": choice["function"].get("name")}
    return choice


def responses_input(messages: list[ChatMessage]) -> tuple[str, list[dict[str, Any]]]:
    """(instructions from the system messages, the other messages as Responses input items)."""
    system = "\n\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")
    items: list[dict[str, Any]] = []
    for m in messages:
        role = m.get("role")
        if role == "system":
            continue
        if role == "tool":
            items.append(
                {"type": "function_call_output", "call_id": m.get("tool_call_id"), "output": _text(m.get("content"))}
            )
            continue
        calls = m.get("tool_calls") or []
        if m.get("content") is not None or not calls:
            items.append({"role": role, "content": m.get("content") or ""})
        for call in calls:
            fn = call.get("function") or {}
            items.append(
                {
                    "type": "function_call",
                    "call_id": call.get("id"),
                    "name": fn.get("name"),
                    "arguments": fn.get("arguments") or "{}",
                }
            )
    return system, items


def responses_tool_calls(response: Any) -> list[ToolCall]:
    out = []
    for item in getattr(response, "output", None) or []:
        if getattr(item, "type", "") == "function_call":
            out.append(
                ToolCall(
                    id=str(getattr(item, "call_id", "") or ""),
                    name=str(getattr(item, "name", "")),
                    arguments=str(getattr(item, "arguments", "") or ""),
                )
            )
    return out


# --------------------------------------------------------------------------- anthropic-messages


def anthropic_tools(tools: list[dict[str, Any]]) -> list[AnthropicTool]:
    out: list[AnthropicTool] = []
    for tool in tools:
        fn = _function(tool)
        entry: AnthropicTool = {
            "name": fn["name"],
            "input_schema": fn.get("parameters") or {"type": "object", "properties": {}},
        }
        if fn.get("description"):
            entry["description"] = fn["description"]
        out.append(entry)
    return out


def anthropic_tool_choice(choice: Any, parallel: Any) -> dict[str, Any] | None:
    """Anthropic's ``tool_choice`` for a chat-form ``tool_choice`` and ``parallel_tool_calls`` (None: unset)."""
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        out: dict[str, Any] = {"type": "tool", "name": choice["function"].get("name")}
    elif isinstance(choice, dict):
        out = dict(choice)
    elif choice is None:
        out = {"type": "auto"} if parallel is False else {}
    else:
        kinds = {"auto": "auto", "required": "any", "any": "any", "none": "none"}
        if choice not in kinds:
            raise ConfigError(f"tool_choice={choice!r}: expected auto, required, none or a named function")
        out = {"type": kinds[choice]}
    if parallel is False and out.get("type") in ("auto", "any", "tool"):
        out["disable_parallel_tool_use"] = True
    return out or None


def _text(content: Any) -> str:
    """Plain text of a chat content (a string, or a list of text parts)."""
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def _blocks(content: Any) -> list[dict[str, Any]]:
    """Anthropic content blocks of a chat content (text parts keep their cache_control)."""
    if isinstance(content, list):
        return [dict(p) for p in content if isinstance(p, dict)]
    return [{"type": "text", "text": str(content)}] if content not in (None, "") else []


def _tool_use(call: dict[str, Any]) -> dict[str, Any]:
    fn = call.get("function") or {}
    try:
        args = json.loads(fn.get("arguments") or "{}")
    except ValueError:
        args = {}
    return {
        "type": "tool_use",
        "id": call.get("id"),
        "name": fn.get("name"),
        "input": args if isinstance(args, dict) else {},
    }


def anthropic_messages(messages: list[dict[str, Any]]) -> tuple[str | list[dict[str, Any]], list[dict[str, Any]]]:
    """(system, messages) for the Messages API. Plain-string contents stay strings when nothing joins them."""
    system_msgs = [m for m in messages if m.get("role") == "system"]
    if any(isinstance(m.get("content"), list) for m in system_msgs):
        system: str | list[dict[str, Any]] = [b for m in system_msgs for b in _blocks(m.get("content"))]
    else:
        system = "\n\n".join(str(m.get("content") or "") for m in system_msgs)
    out: list[dict[str, Any]] = []
    for m in messages:
        role = m.get("role")
        if role == "system":
            continue
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": m.get("tool_call_id"), "content": _text(m.get("content"))}
            if m.get("cache_control"):
                block["cache_control"] = m["cache_control"]
            role, content = "user", [block]
        elif m.get("tool_calls"):
            content = _blocks(m.get("content")) + [_tool_use(c) for c in m["tool_calls"]]
        else:
            content = m.get("content") if m.get("content") is not None else ""
        joins = _has_results(out[-1]["content"]) or m.get("role") == "tool" if out else False
        if out and out[-1]["role"] == role == "user" and joins:
            prev = out[-1]["content"]
            out[-1]["content"] = (_blocks(prev) if not isinstance(prev, list) else prev) + (
                content if isinstance(content, list) else _blocks(content)
            )
        else:
            out.append({"role": role, "content": content})
    return system, out


def _has_results(content: Any) -> bool:
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)


def anthropic_tool_calls(message: Any) -> list[ToolCall]:
    out = []
    for block in getattr(message, "content", None) or []:
        if getattr(block, "type", "") == "tool_use":
            out.append(
                ToolCall(
                    id=str(getattr(block, "id", "")),
                    name=str(getattr(block, "name", "")),
                    arguments=json.dumps(getattr(block, "input", None) or {}),
                )
            )
    return out
