"""OpenAI Responses -> OpenAI Chat Completions (Codex CLI on a chat-only endpoint).

Request: ``instructions`` and system / developer messages become system messages; user and assistant messages
become chat messages (images as ``image_url`` parts); ``function_call`` items (with any assistant text before them)
become one assistant message's ``tool_calls``, ``function_call_output`` items ``tool`` messages; reasoning items
from earlier turns are left out (a chat endpoint takes none back). Function tools become chat function tools, a
``custom`` (free-form) tool a function taking one string ``input`` (its calls come back as ``custom_tool_call``
items); hosted tools (``web_search``, ``file_search``, ...) are dropped with a warning. ``max_output_tokens`` ->
``max_tokens``, ``reasoning.effort`` -> ``reasoning_effort``, ``text.verbosity`` -> ``verbosity``,
``temperature``, ``top_p``, ``parallel_tool_calls``, ``tool_choice``, ``user`` / ``safety_identifier`` ->
``user``. ``store``, ``prompt_cache_key``, ``metadata`` and ``include: [reasoning.encrypted_content]`` need nothing
sent; the rest is refused (see ``_responses_in``).

Reply: reasoning content becomes a reasoning item, text a message item, tool calls function (or custom) call items.
"""

from __future__ import annotations

from typing import Any

from agentcompass.models.wire import ChatContentPart, ChatMessage, ChatToolCall, ResponsesRequest

from . import _common, _read_chat, _responses_in, _write_responses
from ._common import Refuser
from ._responses_in import Turn, TurnPart

AGENT, UPSTREAM = "openai-responses", "openai-chat"
read, writer, body = _read_chat, _write_responses.StreamWriter, _write_responses.body


def _content(parts: list[TurnPart]) -> str | list[ChatContentPart]:
    if all(p["type"] == "text" for p in parts):
        return "".join(p["text"] for p in parts)
    return [
        {"type": "text", "text": p["text"]}
        if p["type"] == "text"
        else {"type": "image_url", "image_url": {"url": p["url"]}}
        for p in parts
    ]


def _assistant(parts: list[TurnPart]) -> ChatMessage | None:
    texts = [p for p in parts if p["type"] == "text"]
    calls: list[ChatToolCall] = [
        {"id": p["id"], "type": "function", "function": {"name": p["name"], "arguments": p["arguments"] or "{}"}}
        for p in parts
        if p["type"] == "tool"
    ]
    if not texts and not calls:
        return None  # reasoning only
    message: ChatMessage = {"role": "assistant", "content": _content(texts) if texts else None}
    if calls:
        message["tool_calls"] = calls
    return message


def _messages(turns: list[Turn]) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    for turn in turns:
        role = turn["role"]
        if role == "system":
            out.append({"role": "system", "content": turn["text"]})
        elif role == "user":
            out.append({"role": "user", "content": _content(turn["parts"])})
        elif role == "tool":
            output = turn["output"]
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": turn["id"],
                    "content": output if isinstance(output, str) else _content(output),
                }
            )
        else:
            message = _assistant(turn["parts"])
            if message is not None:
                out.append(message)
    return out


def request(agent: ResponsesRequest, warnings: list[str]) -> dict[str, object]:
    refuse = Refuser(AGENT, UPSTREAM)
    _responses_in.check(agent, refuse, warnings)
    refuse.unknown_keys(agent.get("text") or {}, {"format", "verbosity"}, "text.")
    out: dict[str, Any] = {
        "model": agent.get("model"),
        "messages": _messages(_responses_in.conversation(agent, refuse)),
    }
    tools = _responses_in.tools(agent, refuse, warnings)
    if tools:
        out["tools"] = [{"type": "function", "function": {k: v for k, v in t.items() if v is not None}} for t in tools]
        choice = _responses_in.tool_choice(agent, refuse)
        if choice is not None:
            out["tool_choice"] = (
                choice if not choice.startswith("=") else {"type": "function", "function": {"name": choice[1:]}}
            )
        if agent.get("parallel_tool_calls") is not None:
            out["parallel_tool_calls"] = bool(agent["parallel_tool_calls"])
    if agent.get("max_output_tokens") is not None:
        out["max_tokens"] = agent["max_output_tokens"]
    for key in ("temperature", "top_p", "stream"):
        value = agent.get(key)
        if value is not None:
            out[key] = value
    reasoning = agent.get("reasoning") or {}
    refuse.unknown_keys(reasoning, {"effort", "summary", "generate_summary"}, "reasoning.")
    if reasoning.get("effort"):
        out["reasoning_effort"] = reasoning["effort"]
    if (agent.get("text") or {}).get("verbosity"):
        out["verbosity"] = agent["text"]["verbosity"]
    user = _responses_in.user(agent)
    if user:
        out["user"] = user
    _common.dumps(out)  # fails here, not upstream, on a value that is not JSON
    return out
