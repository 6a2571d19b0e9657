"""Anthropic Messages -> OpenAI Chat Completions (Claude Code on a vLLM / SGLang / OpenRouter endpoint).

Request: ``system`` becomes the first message (one text block: a string, several: text parts), ``role: "system"``
entries of ``messages`` system messages in their place; user text and
images become content parts (a base64 image a ``data:`` URL); ``tool_result`` blocks become ``tool`` messages
placed before the rest of their user turn (text results as a string, with images as parts); assistant ``text``
and ``tool_use`` blocks become ``content`` and ``tool_calls``; thinking from earlier turns is left out (a chat
endpoint takes none back). Tools become function tools, ``tool_choice`` any/tool/none ``required`` / a named
function / ``none``, ``disable_parallel_tool_use`` ``parallel_tool_calls: false``; ``max_tokens``,
``temperature``, ``top_p``, ``top_k``, ``stop_sequences`` -> ``stop``; ``output_config.effort`` (or, without
it, ``thinking.budget_tokens``: <= 2048 low, <= 8192 medium, else high) -> ``reasoning_effort``,
``output_config.format`` -> ``response_format``; ``metadata.user_id`` -> ``user``; ``defer_loading`` tools are sent
once a ``tool_reference`` has loaded them; ``context_management``'s ``clear_thinking`` has nothing to clear (a
warning). ``cache_control`` marks are prompt-cache hints and are not sent. Anthropic server tools (web search, web
fetch, code execution) are dropped with a warning; any other field, block type or tool type is refused (see
``_messages_in``).
"""

from __future__ import annotations

from typing import Any

from agentcompass.models.wire import (
    AnthropicBlock,
    AnthropicRequest,
    AnthropicToolChoice,
    ChatContentPart,
    ChatFunctionCall,
    ChatFunctionDefinition,
    ChatMessage,
    ChatTool,
    ChatToolCall,
)

from . import _common, _messages_in, _read_chat, _write_messages
from ._common import Refuser

AGENT, UPSTREAM = "anthropic-messages", "openai-chat"
KNOWN = frozenset(
    {"model", "messages", "system", "max_tokens", "temperature", "top_p", "top_k", "stop_sequences", "stream"}
    | {"tools", "tool_choice", "thinking", "metadata", "output_config", "context_management"}
)
read, writer, body = _read_chat, _write_messages.StreamWriter, _write_messages.body


def _image(block: AnthropicBlock, refuse: Refuser) -> ChatContentPart:
    source = block.get("source") or {}
    if source.get("type") == "base64":
        return {
            "type": "image_url",
            "image_url": {"url": f"data:{source.get('media_type')};base64,{source.get('data')}"},
        }
    if source.get("type") == "url":
        return {"type": "image_url", "image_url": {"url": source.get("url")}}
    raise refuse(f"image source type {source.get('type')!r}")


def _parts(blocks: list[AnthropicBlock], refuse: Refuser, what: str) -> list[ChatContentPart]:
    out: list[ChatContentPart] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            out.append({"type": "text", "text": block.get("text") or ""})
        elif kind == "image":
            out.append(_image(block, refuse))
        elif kind == "tool_reference" and what == "tool_result":
            continue  # the tool it loads is in the request's tools
        else:
            raise refuse(f"{what}: content block type {kind!r}")
    return out


def _flat(parts: list[ChatContentPart]) -> str | list[ChatContentPart]:
    """Text parts only: one string; otherwise the parts."""
    if all(p["type"] == "text" for p in parts):
        return "".join(p["text"] for p in parts)
    return parts


def _tool_result(block: AnthropicBlock, refuse: Refuser) -> ChatMessage:
    content = block.get("content")
    if content is None or isinstance(content, str):
        value: Any = content or ""
    else:
        value = _flat(_parts(content, refuse, "tool_result"))
    return {"role": "tool", "tool_call_id": block.get("tool_use_id"), "content": value}


def _user(content: Any, refuse: Refuser) -> list[ChatMessage]:
    if isinstance(content, str):
        return [{"role": "user", "content": content}]
    tools = [_tool_result(b, refuse) for b in content if b.get("type") == "tool_result"]
    rest = [b for b in content if b.get("type") != "tool_result"]
    out = list(tools)
    if rest or not tools:
        out.append({"role": "user", "content": _flat(_parts(rest, refuse, "user message"))})
    return out


def _assistant(content: Any, refuse: Refuser) -> ChatMessage:
    if isinstance(content, str):
        return {"role": "assistant", "content": content}
    texts: list[str] = []
    calls: list[ChatToolCall] = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            texts.append(block.get("text") or "")
        elif kind == "tool_use":
            fn: ChatFunctionCall = {"name": block.get("name"), "arguments": _common.dumps(block.get("input") or {})}
            calls.append({"id": block.get("id"), "type": "function", "function": fn})
        elif kind not in ("thinking", "redacted_thinking"):
            raise refuse(f"assistant message: content block type {kind!r}")
    message: ChatMessage = {"role": "assistant", "content": "".join(texts) if texts or not calls else None}
    if calls:
        message["tool_calls"] = calls
    return message


def _system(system: Any, refuse: Refuser) -> list[ChatMessage]:
    if not system:
        return []
    if isinstance(system, str):
        return [{"role": "system", "content": system}]
    parts = _parts(system, refuse, "system")
    return [{"role": "system", "content": parts[0]["text"] if len(parts) == 1 else parts}]


def _tools(agent: AnthropicRequest, refuse: Refuser, warnings: list[str]) -> list[ChatTool]:
    out: list[ChatTool] = []
    loaded = _messages_in.loaded_tools(agent.get("messages") or [])
    for tool in agent.get("tools") or []:
        if _common.hosted_anthropic_tool(tool):
            warnings.append(_common.dropped(tool))
            continue
        if tool.get("type") not in (None, "custom"):
            raise refuse(f"tool type {tool.get('type')!r} (tool {tool.get('name')!r})")
        if not _messages_in.visible(tool, loaded, refuse):
            continue
        fn: ChatFunctionDefinition = {
            "name": tool.get("name"),
            "parameters": tool.get("input_schema") or {"type": "object"},
        }
        if tool.get("description"):
            fn["description"] = tool["description"]
        if tool.get("strict") is not None:
            fn["strict"] = bool(tool["strict"])
        out.append({"type": "function", "function": fn})
    return out


def _tool_choice(choice: AnthropicToolChoice, refuse: Refuser) -> Any:
    kind = choice.get("type")
    if kind == "auto":
        return "auto"
    if kind == "any":
        return "required"
    if kind == "none":
        return "none"
    if kind == "tool":
        return {"type": "function", "function": {"name": choice.get("name")}}
    raise refuse(f"tool_choice type {kind!r}")


def request(agent: AnthropicRequest, warnings: list[str]) -> dict[str, object]:
    """The chat request for a Messages request (see the module doc)."""
    refuse = Refuser(AGENT, UPSTREAM)
    refuse.unknown_keys(agent, KNOWN)
    messages = _system(agent.get("system"), refuse)
    turns = agent.get("messages") or []
    for i, message in enumerate(turns):
        role = message.get("role")
        if role == "user":
            messages += _user(message.get("content") or "", refuse)
        elif role == "assistant":
            messages.append(_assistant(message.get("content") or "", refuse))
        elif role == "system":
            text = _messages_in.system_message(turns, i, refuse)
            if text is not None:
                messages.append({"role": "system", "content": text})
        else:
            raise refuse(f"messages[{i}].role {role!r}")
    out: dict[str, Any] = {"model": agent.get("model"), "messages": messages}
    for key in ("max_tokens", "temperature", "top_p", "top_k", "stream"):
        value = agent.get(key)
        if value is not None:
            out[key] = value
    if agent.get("stop_sequences"):
        out["stop"] = list(agent["stop_sequences"])
    tools = _tools(agent, refuse, warnings)
    if tools:
        out["tools"] = tools
    choice = agent.get("tool_choice")
    if choice and tools:
        out["tool_choice"] = _tool_choice(choice, refuse)
        if choice.get("disable_parallel_tool_use"):
            out["parallel_tool_calls"] = False
    effort = _messages_in.effort(agent, refuse, warnings)
    if effort:
        out["reasoning_effort"] = effort
    fmt = _messages_in.response_format(agent, refuse)
    if fmt:
        out["response_format"] = fmt
    _messages_in.context_edits(agent, UPSTREAM, refuse, warnings)
    meta = agent.get("metadata") or {}
    refuse.unknown_keys(meta, {"user_id"}, "metadata.")
    if meta.get("user_id"):
        out["user"] = str(meta["user_id"])
    return out
