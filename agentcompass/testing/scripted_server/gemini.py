"""The Gemini API side of the scripted server: ``/v1beta/models/{model}:generateContent`` (``/v1/...`` too),
``:streamGenerateContent`` (``?alt=sse``: SSE; without it, a JSON array of the chunks) and ``:countTokens`` (the
words of the request, no reply of the script used).

A scripted reply becomes a Gemini reply: its text a ``text`` part, each tool call a ``functionCall`` part (with the
script's id, the arguments as ``args``), the finish reason ``STOP`` (``length``: ``MAX_TOKENS``, ``content_filter``:
``SAFETY``), the usage ``usageMetadata`` (``promptTokenCount`` holding the cached tokens, as Gemini counts them).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from agentcompass.models.wire import ApiErrorBody, GeminiCandidate, GeminiPart, GeminiResponse, GeminiUsage
from agentcompass.models.wire import gemini as _gemini_wire

if TYPE_CHECKING:
    from .script import ServedCall

PROTOCOL = "google-genai"
_ROUTE = re.compile(r"^(?:/v1)?/v1(?:beta)?/models/(?P<model>[^/:]+):(?P<method>[A-Za-z]+)$")
METHODS = ("generateContent", "streamGenerateContent", "countTokens")
_FINISH = {"stop": "STOP", "tool_calls": "STOP", "length": "MAX_TOKENS", "content_filter": "SAFETY"}


def route(path: str) -> tuple[str, str] | None:
    """``(model, method)`` of a Gemini API path, None for any other path."""
    found = _ROUTE.match(path)
    if found is None or found["method"] not in METHODS:
        return None
    return found["model"], found["method"]


def error_body(status: int, message: str) -> ApiErrorBody:
    return _gemini_wire.error_body(status, message)


def words(body: dict[str, Any]) -> int:
    """The words of the request's text (contents and system instruction): the scripted token count."""

    def count(value: Any) -> int:
        if isinstance(value, str):
            return len(value.split())
        if isinstance(value, dict):
            return sum(count(value.get(k)) for k in ("parts", "text", "contents", "systemInstruction"))
        if isinstance(value, list):
            return sum(count(v) for v in value)
        return 0

    body = _gemini_wire.camel_keys(body)
    nested = body.get("generateContentRequest")
    inner: dict[str, Any] = nested if isinstance(nested, dict) else body
    return count(inner.get("contents")) + count(inner.get("systemInstruction"))


def success_body(model: str, text: str, finish: str, usage: dict[str, int], calls: list[ServedCall]) -> GeminiResponse:
    parts: list[GeminiPart] = [{"text": text}] if text or not calls else []
    for c in calls:
        args = json.loads(c["arguments"] or "{}") if isinstance(c["arguments"], str) else c["arguments"]
        if not isinstance(args, dict):
            raise ValueError(f"tool call arguments {c['arguments']!r} are not a JSON object (Gemini args must be one)")
        parts.append({"functionCall": {"id": c["id"], "name": c["name"], "args": args}})
    n_in, n_out = int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))
    cached = int(usage.get("cached_tokens", 0))
    meta: GeminiUsage = {"promptTokenCount": n_in, "candidatesTokenCount": n_out, "totalTokenCount": n_in + n_out}
    if cached:
        meta["cachedContentTokenCount"] = cached
    candidate: GeminiCandidate = {
        "content": {"role": "model", "parts": parts},
        "finishReason": _FINISH.get(finish, finish.upper()),
    }
    return {"candidates": [{**candidate, "index": 0}], "usageMetadata": meta, "modelVersion": model}


def conversation(body: dict[str, Any]) -> dict[str, Any]:
    """The request as the chat form the script's task matching reads (``system``, ``messages``)."""
    body = _gemini_wire.camel_keys(body)
    system = (body.get("systemInstruction") or {}).get("parts") or []
    messages = []
    for content in body.get("contents") or []:
        if not isinstance(content, dict):
            continue
        role = "assistant" if content.get("role") == "model" else "user"
        text = "\n".join(p.get("text", "") for p in content.get("parts") or [] if isinstance(p.get("text"), str))
        messages.append({"role": role, "content": text})
    return {"system": "\n".join(p.get("text", "") for p in system if isinstance(p, dict)), "messages": messages}


def send(handler: Any, method: str, sse: bool, payload: GeminiResponse, reply: dict[str, Any], streaming: bool) -> None:
    """Answer a generate request with ``payload``: a body, or (``streamGenerateContent``) its chunks as SSE events
    or a JSON array."""
    from agentcompass.models.wire import encode

    synthesize = _gemini_wire.synthesize

    if method != "streamGenerateContent" or not streaming:
        handler.send_json(200, payload)
        return
    chunks = [data for _, data in synthesize(payload)]
    if not sse:
        handler.send_json(200, chunks)
        return
    handler.send_events(
        [encode(None, c) for c in chunks],
        reply.get("drop_after_events"),
        float(reply.get("event_delay_s", 0.0)),
        float(reply.get("end_delay_s", 0.0)),
    )


def answer(
    handler: Any, path: str, parts: tuple[str, str, dict[str, int], list[ServedCall]], reply: Any, streaming: bool
) -> None:
    """Answer a generate request with the scripted ``(text, finish, usage, calls)``."""
    model, method = route(path) or ("scripted", "generateContent")
    try:
        payload = success_body(model, *parts)
    except ValueError as exc:
        handler.send_json(500, error_body(500, f"scripted server: {exc}"), {"x-should-retry": "false"})
        return
    send(handler, method, "alt=sse" in handler.path.partition("?")[2], payload, reply, streaming)
