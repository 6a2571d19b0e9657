"""Facts read from a protocol's JSON reply body (text, finish reason, tool calls, token counts): the call record and
the usage of a forwarded call, where no SDK object exists."""

from __future__ import annotations

import json
from typing import Any

from . import _usage

_BUNDLED = ("openai-chat", "openai-responses", "anthropic-messages")
_ANTHROPIC_STOP = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls"}


def _format(protocol: str) -> tuple[str, Any]:
    """The bundled wire format of ``protocol`` and its module (which has the hooks of a format of its own)."""
    from .protocols import module, wire

    return wire(protocol), module(protocol)


def tokens(protocol: str, body: dict[str, Any] | None) -> tuple[int, int, int]:
    protocol, mod = _format(protocol)
    if protocol not in _BUNDLED:
        return tuple(mod.tokens(body))  # type: ignore[return-value]
    usage = (body or {}).get("usage")
    if not isinstance(usage, dict):
        return 0, 0, 0
    if protocol == "openai-chat":
        return _usage.openai_chat_tokens(usage)
    if protocol == "openai-responses":
        return _usage.openai_responses_tokens(usage)
    return _usage.anthropic_tokens(usage)


def summary(protocol: str, body: dict[str, Any] | None) -> tuple[str, str, list[dict[str, str]]]:
    """``(text, normalized finish reason, [{id, name, arguments}])`` of a reply body."""
    protocol, mod = _format(protocol)
    if protocol not in _BUNDLED:
        return mod.summary(body)  # type: ignore[no-any-return]
    body = body or {}
    if protocol == "openai-chat":
        choice = (body.get("choices") or [{}])[0]
        message = choice.get("message") or {}
        calls = [
            {
                "id": c.get("id"),
                "name": (c.get("function") or {}).get("name"),
                "arguments": (c.get("function") or {}).get("arguments", ""),
            }
            for c in message.get("tool_calls") or []
        ]
        return message.get("content") or "", choice.get("finish_reason") or "stop", calls
    if protocol == "openai-responses":
        text, calls = "", []
        for item in body.get("output") or []:
            if item.get("type") == "message":
                text += "".join(p.get("text", "") for p in item.get("content") or [] if p.get("type") == "output_text")
            elif item.get("type") == "function_call":
                calls.append(
                    {"id": item.get("call_id"), "name": item.get("name"), "arguments": item.get("arguments", "")}
                )
        reason = (body.get("incomplete_details") or {}).get("reason")
        finish = "length" if reason == "max_output_tokens" else reason or ("tool_calls" if calls else "stop")
        return text, str(finish), calls
    blocks = body.get("content") or []
    text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    calls = [
        {"id": b.get("id"), "name": b.get("name"), "arguments": json.dumps(b.get("input") or {})}
        for b in blocks
        if b.get("type") == "tool_use"
    ]
    reason = body.get("stop_reason") or "end_turn"
    return text, _ANTHROPIC_STOP.get(reason, str(reason)), calls
