"""OpenAI Chat Completions -> Anthropic Messages (a chat agent on an Anthropic endpoint).

Request: ``system`` / ``developer`` messages become ``system`` (in order, one text block each); user text and
images become blocks (a ``data:`` URL a base64 source, another URL a url source); assistant ``content`` and
``tool_calls`` become ``text`` and ``tool_use`` blocks; ``tool`` messages become ``tool_result`` blocks of a user
turn (consecutive turns of one role are merged, as Anthropic needs them alternating). Function tools become tools
(``strict`` is a schema-adherence hint and is not sent), ``tool_choice`` required/none/a function ``any`` /
``none`` / ``tool``, ``parallel_tool_calls: false`` ``disable_parallel_tool_use``; ``max_completion_tokens`` or
``max_tokens`` (default 8192, Anthropic needs one), ``temperature``, ``top_p``, ``top_k``, ``stop`` ->
``stop_sequences``, ``user`` -> ``metadata.user_id``, ``reasoning_effort`` -> ``thinking`` (low 2048, medium
8192, high 16384 budget tokens; ``max_tokens`` raised above the budget when it is not). ``n`` > 1, audio,
logprobs, response formats other than text and any other field are refused.
"""

from __future__ import annotations

from typing import Any

from agentcompass.models.protocols.anthropic_messages import DEFAULT_MAX_TOKENS
from agentcompass.models.wire import (
    AnthropicBlock,
    AnthropicTool,
    AnthropicToolChoice,
    ChatContentPart,
    ChatMessage,
    ChatTool,
)

from . import _common, _read_messages, _write_chat
from ._common import Refuser

AGENT, UPSTREAM = "openai-chat", "anthropic-messages"
KNOWN = frozenset(
    {"model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "top_k", "stop", "stream"}
    | {"stream_options", "tools", "tool_choice", "parallel_tool_calls", "user", "reasoning_effort", "n", "store"}
    | {"response_format", "metadata"}
)
BUDGET = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
read, writer, body = _read_messages, _write_chat.StreamWriter, _write_chat.body


def _image(part: ChatContentPart) -> AnthropicBlock:
    url = str((part.get("image_url") or {}).get("url") or "")
    if url.startswith("data:") and ";base64," in url:
        media, data = url[5:].split(";base64,", 1)
        return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def _blocks(content: Any, refuse: Refuser, what: str) -> list[AnthropicBlock]:
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    out: list[AnthropicBlock] = []
    for part in content:
        kind = part.get("type")
        if kind == "text":
            out.append({"type": "text", "text": part.get("text") or ""})
        elif kind == "image_url":
            out.append(_image(part))
        else:
            raise refuse(f"{what}: content part type {kind!r}")
    return out


def _assistant(message: ChatMessage, refuse: Refuser) -> list[AnthropicBlock]:
    blocks = _blocks(message.get("content"), refuse, "assistant message")
    for call in message.get("tool_calls") or []:
        if call.get("type", "function") != "function":
            raise refuse(f"assistant tool call type {call.get('type')!r}")
        fn = call.get("function") or {}
        blocks.append(
            {
                "type": "tool_use",
                "id": call.get("id"),
                "name": fn.get("name"),
                "input": _common.arguments(fn.get("arguments")),
            }
        )
    return blocks


def _tool(message: ChatMessage, refuse: Refuser) -> AnthropicBlock:
    blocks = _blocks(message.get("content"), refuse, "tool message")
    content: Any = "".join(b["text"] for b in blocks) if all(b["type"] == "text" for b in blocks) else blocks
    return {"type": "tool_result", "tool_use_id": message.get("tool_call_id"), "content": content}


def _turns(messages: list[ChatMessage], refuse: Refuser) -> tuple[list[AnthropicBlock], list[dict[str, Any]]]:
    system: list[AnthropicBlock] = []
    turns: list[dict[str, Any]] = []  # messages whose content grows as turns of one role are merged

    def add(role: str, blocks: list[AnthropicBlock]) -> None:
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] += blocks
        else:
            turns.append({"role": role, "content": blocks})

    for i, message in enumerate(messages):
        role = message.get("role")
        if role in ("system", "developer"):
            system += _blocks(message.get("content"), refuse, f"{role} message")
        elif role == "user":
            add("user", _blocks(message.get("content"), refuse, "user message"))
        elif role == "assistant":
            add("assistant", _assistant(message, refuse))
        elif role == "tool":
            add("user", [_tool(message, refuse)])
        else:
            raise refuse(f"messages[{i}].role {role!r}")
    return system, turns


def _tools(tools: list[ChatTool], refuse: Refuser) -> list[AnthropicTool]:
    out: list[AnthropicTool] = []
    for tool in tools:
        if tool.get("type") != "function":
            raise refuse(f"tool type {tool.get('type')!r}")
        fn = tool.get("function") or {}
        item: AnthropicTool = {
            "name": fn.get("name"),
            "input_schema": fn.get("parameters") or {"type": "object", "properties": {}},
        }
        if fn.get("description"):
            item["description"] = fn["description"]
        out.append(item)
    return out


def _tool_choice(choice: Any, refuse: Refuser) -> AnthropicToolChoice:
    if choice in ("auto", "required", "none"):
        return {"type": {"auto": "auto", "required": "any", "none": "none"}[choice]}
    if isinstance(choice, dict) and choice.get("type") == "function":
        return {"type": "tool", "name": (choice.get("function") or {}).get("name")}
    raise refuse(f"tool_choice {choice!r}")


def _check(agent: dict[str, Any], refuse: Refuser) -> None:
    refuse.unknown_keys(agent, KNOWN)
    if (agent.get("n") or 1) != 1:
        raise refuse(f"n={agent['n']} (one choice only)")
    kind = (agent.get("response_format") or {}).get("type", "text")
    if kind != "text":
        raise refuse(f"response_format type {kind!r}")
    if agent.get("metadata"):
        raise refuse("metadata (stored completions)")


def request(agent: dict[str, Any], warnings: list[str]) -> dict[str, object]:
    """The Messages request for a chat request (see the module doc)."""
    refuse = Refuser(AGENT, UPSTREAM)
    _check(agent, refuse)
    system, turns = _turns(agent.get("messages") or [], refuse)
    out: dict[str, Any] = {"model": agent.get("model"), "messages": turns}
    if system:
        out["system"] = system
    out["max_tokens"] = agent.get("max_completion_tokens") or agent.get("max_tokens") or DEFAULT_MAX_TOKENS
    for key in ("temperature", "top_p", "top_k", "stream"):
        if agent.get(key) is not None:
            out[key] = agent[key]
    stop = agent.get("stop")
    if stop:
        out["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
    tools = _tools(agent.get("tools") or [], refuse)
    if tools:
        out["tools"] = tools
        choice = _tool_choice(agent.get("tool_choice") or "auto", refuse)
        if agent.get("parallel_tool_calls") is False:
            choice["disable_parallel_tool_use"] = True
        if agent.get("tool_choice") is not None or agent.get("parallel_tool_calls") is False:
            out["tool_choice"] = choice
    if agent.get("user"):
        out["metadata"] = {"user_id": str(agent["user"])}
    effort = agent.get("reasoning_effort")
    if effort is not None:
        if effort not in BUDGET:
            raise refuse(f"reasoning_effort {effort!r} (one of {', '.join(BUDGET)})")
        out["thinking"] = {"type": "enabled", "budget_tokens": BUDGET[effort]}
        if out["max_tokens"] <= BUDGET[effort]:
            out["max_tokens"] = BUDGET[effort] + DEFAULT_MAX_TOKENS
    return out
