"""Reply bodies in the shape of each protocol (OpenAI chat / responses, Anthropic messages)."""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

from agentcompass.models.wire import (
    AnthropicBlock,
    AnthropicResponse,
    ApiErrorBody,
    ChatCompletion,
    ChatReplyMessage,
    Response,
    ResponsesIncomplete,
    ResponsesOutputItem,
)

from .script import ScriptedCall, ServedCall

CHAT, RESPONSES, MESSAGES = "/v1/chat/completions", "/v1/responses", "/v1/messages"
PROTOCOL_OF_PATH = {CHAT: "openai-chat", RESPONSES: "openai-responses", MESSAGES: "anthropic-messages"}

_ids = itertools.count(1)
_CHAT_FINISH = {"stop": "stop", "length": "length", "tool_calls": "tool_calls", "content_filter": "content_filter"}
_ANTHROPIC_STOP = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "stop_sequence": "stop_sequence",
    "refusal": "refusal",
}
_ANTHROPIC_ERROR_TYPE = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def _words(value: Any) -> int:
    """A deterministic token count: words of the text in ``value`` (message contents, not roles)."""
    if isinstance(value, str):
        return len(value.split())
    if isinstance(value, dict):
        return sum(_words(value.get(k)) for k in ("content", "text"))
    if isinstance(value, list):
        return sum(_words(v) for v in value)
    return 0


def protocol_of(path: str) -> str | None:
    """The API of a request path (None: no route)."""
    from . import gemini

    return PROTOCOL_OF_PATH.get(path) or (gemini.PROTOCOL if gemini.route(path) else None)


def default_usage(body: dict[str, Any], text: str, calls: list[ServedCall] | None = None) -> dict[str, int]:
    """Usage used when a reply gives none: words of the prompt in, words of the reply (and call arguments) out."""
    from . import gemini

    prompt = sum(_words(body.get(k)) for k in ("messages", "input", "instructions", "system")) + gemini.words(body)
    out = len(text.split()) + sum(len(str(c.get("arguments", "")).split()) for c in calls or [])
    return {"input_tokens": prompt, "output_tokens": out, "cached_tokens": 0}


def with_ids(calls: list[ScriptedCall]) -> list[ServedCall]:
    """The reply's tool calls, each with an id (``call_<n>`` unless the script gives one)."""
    return [{**c, "id": c.get("id") or f"call_{next(_ids)}"} for c in calls]


def success_body(
    path: str, model: str, text: str, finish: str, usage: dict[str, int], calls: list[ServedCall] | None = None
) -> ChatCompletion | Response | AnthropicResponse:
    """The 200 body for ``path`` carrying ``text``, tool ``calls``, a normalized finish reason and usage."""
    n_in, n_out = int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))
    cached = int(usage.get("cached_tokens", 0))
    calls = calls or []
    if path == RESPONSES:
        return _responses_body(model, text, finish, n_in, n_out, cached, calls)
    if path == MESSAGES:
        return _messages_body(model, text, finish, n_in, n_out, cached, calls)
    message: ChatReplyMessage = {"role": "assistant", "content": text if text or not calls else None}
    if calls:
        message["tool_calls"] = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in calls
        ]
    return {
        "id": f"chatcmpl-{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": _CHAT_FINISH.get(finish, finish), "logprobs": None}
        ],
        "usage": {
            "prompt_tokens": n_in,
            "completion_tokens": n_out,
            "total_tokens": n_in + n_out,
            "prompt_tokens_details": {"cached_tokens": cached},
        },
    }


def _messages_body(
    model: str, text: str, finish: str, n_in: int, n_out: int, cached: int, calls: list[ServedCall]
) -> AnthropicResponse:
    content: list[AnthropicBlock] = [{"type": "text", "text": text}] if text or not calls else []
    for c in calls:
        args = json.loads(c["arguments"] or "{}")
        if not isinstance(args, dict):
            raise ValueError(
                f"tool call arguments {c['arguments']!r} are not a JSON object (Anthropic tool_use input must be one)"
            )
        content.append({"type": "tool_use", "id": c["id"], "name": c["name"], "input": args})
    return {
        "id": f"msg_{next(_ids)}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": _ANTHROPIC_STOP.get(finish, finish),
        "stop_sequence": None,
        "usage": {
            "input_tokens": n_in - cached,
            "output_tokens": n_out,
            "cache_read_input_tokens": cached,
            "cache_creation_input_tokens": 0,
        },
    }


def _responses_body(
    model: str, text: str, finish: str, n_in: int, n_out: int, cached: int, calls: list[ServedCall]
) -> Response:
    incomplete: ResponsesIncomplete | None = None
    if finish == "length":
        incomplete = {"reason": "max_output_tokens"}
    elif finish == "content_filter":
        incomplete = {"reason": "content_filter"}
    n = next(_ids)
    output: list[ResponsesOutputItem] = []
    if text or not calls:
        output.append(
            {
                "type": "message",
                "id": f"msg_{n}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    output += [
        {
            "type": "function_call",
            "id": f"fc_{n}_{i}",
            "call_id": c["id"],
            "name": c["name"],
            **({"namespace": c["namespace"]} if c.get("namespace") else {}),
            "arguments": c["arguments"],
            "status": "completed",
        }
        for i, c in enumerate(calls)
    ]
    return {
        "id": f"resp_{n}",
        "object": "response",
        "created_at": int(time.time()),
        "model": model,
        "status": "incomplete" if incomplete else "completed",
        "incomplete_details": incomplete,
        "error": None,
        "instructions": None,
        "metadata": {},
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "temperature": None,
        "top_p": None,
        "output": output,
        "usage": {
            "input_tokens": n_in,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": n_out,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": n_in + n_out,
        },
    }


def error_body(path: str, status: int, message: str, code: str | None = None) -> ApiErrorBody:
    """An error body in the shape the official SDK of ``path`` parses."""
    from . import gemini

    if gemini.route(path) is not None:
        return gemini.error_body(status, message)
    if path == MESSAGES:
        kind = code or _ANTHROPIC_ERROR_TYPE.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind = "invalid_request_error" if 400 <= status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}
