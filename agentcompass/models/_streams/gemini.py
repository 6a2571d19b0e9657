"""The Gemini API's reply form (``generateContent``): its JSON body, its SSE stream and the facts read from it.

A reply is ``{candidates: [{content: {role: "model", parts}, finishReason, index}], usageMetadata, modelVersion,
responseId}``; parts are ``{text}`` (``thought: true`` for thinking, ``thoughtSignature`` beside it) and
``{functionCall: {name, args, id?}}``. ``streamGenerateContent?alt=sse`` sends ``data: <chunk>`` events without
event names, each chunk a reply of its own holding the new parts; the last one carries ``finishReason`` and
``usageMetadata``. An error, in a body or in a stream, is ``{"error": {code, message, status}}``.

Usage: ``promptTokenCount`` counts every prompt token, the cached ones (``cachedContentTokenCount``) included;
``toolUsePromptTokenCount`` is added to the input; ``candidatesTokenCount`` + ``thoughtsTokenCount`` is the output.
"""

from __future__ import annotations

import json
from typing import Any

from .._shapes.common import ApiErrorBody
from .._shapes.gemini import GeminiPart, GeminiResponse

STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND"}
STATUS.update({409: "ABORTED", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 501: "UNIMPLEMENTED"})
STATUS.update({503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"})
FILTERED = ("SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE")


def error_body(status: int, message: str, code: str | None = None) -> ApiErrorBody:
    return {"error": {"code": status, "message": message, "status": code or STATUS.get(status, "UNKNOWN")}}


def error_event(status: int, message: str) -> tuple[None, ApiErrorBody]:
    return None, error_body(status, message)


def tokens(body: dict[str, Any] | None) -> tuple[int, int, int]:
    """``(input, output, cached)`` of a reply's ``usageMetadata`` (see the module doc)."""
    meta = (body or {}).get("usageMetadata")
    if not isinstance(meta, dict):
        return 0, 0, 0

    def n(key: str) -> int:
        value = meta.get(key)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

    return (
        n("promptTokenCount") + n("toolUsePromptTokenCount"),
        n("candidatesTokenCount") + n("thoughtsTokenCount"),
        n("cachedContentTokenCount"),
    )


def finish_of(reason: str | None, has_calls: bool) -> str:
    """A Gemini ``finishReason`` in the chat words (``stop``, ``tool_calls``, ``length``, ``content_filter``...)."""
    reason = reason or "STOP"
    if reason == "STOP":
        return "tool_calls" if has_calls else "stop"
    if reason == "MAX_TOKENS":
        return "length"
    return "content_filter" if reason in FILTERED else reason.lower()


def summary(body: dict[str, Any] | None) -> tuple[str, str, list[dict[str, str]]]:
    """``(text, normalized finish reason, [{id, name, arguments}])`` of a reply body."""
    candidate = ((body or {}).get("candidates") or [{}])[0]
    parts = (candidate.get("content") or {}).get("parts") or []
    text = "".join(p.get("text", "") for p in parts if isinstance(p.get("text"), str) and not p.get("thought"))
    calls = [
        {
            "id": str(p["functionCall"].get("id") or ""),
            "name": str(p["functionCall"].get("name") or ""),
            "arguments": json.dumps(p["functionCall"].get("args") or {}, ensure_ascii=False),
        }
        for p in parts
        if isinstance(p.get("functionCall"), dict)
    ]
    return text, finish_of(candidate.get("finishReason"), bool(calls)), calls


def synthesize(body: GeminiResponse, **_: Any) -> list[tuple[str | None, Any]]:
    """The stream of ``body``: one chunk per part (the last with the finish reason and the usage)."""
    candidate = (body.get("candidates") or [{}])[0].copy()
    parts: list[GeminiPart] = list((candidate.get("content") or {}).get("parts") or []) or [{"text": ""}]
    head: dict[str, object] = {k: body.get(k) for k in ("modelVersion", "responseId", "createTime") if k in body}
    events: list[tuple[str | None, Any]] = []
    for i, part in enumerate(parts):
        cand: dict[str, Any] = {"content": {"role": "model", "parts": [part]}, "index": candidate.get("index", 0)}
        chunk: dict[str, Any] = {"candidates": [cand], **head}
        if i == len(parts) - 1:
            cand.update({k: v for k, v in candidate.items() if k not in ("content", "index")})
            if "usageMetadata" in body:
                chunk["usageMetadata"] = body["usageMetadata"]
        events.append((None, chunk))
    return events


class Assembler:
    """The reply a stream amounts to (``body()``): parts joined (consecutive text of one kind merged), the last
    finish reason and usage; ``error`` holds an error chunk's body."""

    def __init__(self) -> None:
        self.reply: dict[str, object] | None = None  # the chunks' fields but their candidates, the last kept
        self.parts: list[dict[str, Any]] = []
        self.candidate: dict[str, object] = {}  # the first candidate's fields but its content, the last kept
        self.error: dict[str, object] | None = None  # an error chunk as received (recorded whole)

    def feed(self, event: str | None, data: Any) -> None:
        if not isinstance(data, dict):
            return
        if "error" in data:
            self.error = data
            return
        if self.reply is None:
            self.reply = {}
        self.reply.update({k: v for k, v in data.items() if k != "candidates"})
        for cand in data.get("candidates") or []:
            if cand.get("index", 0) != 0:
                continue
            self.candidate.update({k: v for k, v in cand.items() if k != "content"})
            for part in (cand.get("content") or {}).get("parts") or []:
                self._add(dict(part))

    def _add(self, part: dict[str, Any]) -> None:
        last = self.parts[-1] if self.parts else None
        plain = set(part) <= {"text", "thought", "thoughtSignature"} and isinstance(part.get("text"), str)
        if last is not None and plain and "text" in last and bool(last.get("thought")) == bool(part.get("thought")):
            if set(last) <= {"text", "thought", "thoughtSignature"} and "thoughtSignature" not in part:
                last["text"] += part["text"]
                return
        self.parts.append(part)

    def body(self) -> dict[str, Any] | None:
        if self.reply is None:
            return None
        candidate = {"content": {"role": "model", "parts": self.parts}, **self.candidate}
        candidate.setdefault("index", 0)
        return {**self.reply, "candidates": [candidate]}


# The API reads a field under its proto name (snake_case) as under its JSON name (camelCase); the SDKs send some
# of each. These are the structural fields read here; values under the keys of OPAQUE are the caller's own data.
_SNAKE = (
    "system_instruction generation_config tool_config safety_settings cached_content function_declarations "
    "parameters_json_schema function_calling_config allowed_function_names function_call function_response "
    "inline_data file_data mime_type file_uri thought_signature max_output_tokens top_p top_k stop_sequences "
    "candidate_count response_mime_type response_schema response_json_schema thinking_config thinking_budget "
    "thinking_level include_thoughts presence_penalty frequency_penalty response_modalities google_search "
    "code_execution url_context google_search_retrieval google_maps file_search computer_use "
    "enterprise_web_search response_logprobs media_resolution speech_config video_metadata executable_code "
    "code_execution_result finish_reason usage_metadata prompt_token_count candidates_token_count "
    "total_token_count cached_content_token_count thoughts_token_count tool_use_prompt_token_count model_version "
    "response_id generate_content_request"
).split()
CAMEL = {s: s.split("_")[0] + "".join(w.title() for w in s.split("_")[1:]) for s in _SNAKE}
OPAQUE = frozenset({"args", "response", "parametersJsonSchema", "parameters", "responseJsonSchema", "responseSchema"})


def camel_keys(value: Any) -> Any:
    """``value`` with the structural fields in their camelCase JSON names (see ``CAMEL``; ``OPAQUE`` values kept)."""
    if isinstance(value, list):
        return [camel_keys(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        key = CAMEL.get(key, key)
        out[key] = item if key in OPAQUE else camel_keys(item)
    return out
