"""A Gemini API reply (a ``generateContent`` body, or ``streamGenerateContent`` chunks) read into the neutral form.

Parts: ``thought: true`` text -> thinking (its ``thoughtSignature`` kept as the block's signature), other text ->
text, ``functionCall`` -> a tool call (its id, else one made up; a ``thoughtSignature`` on it is remembered for the
call's id, :func:`agentcompass.models._gemini.remember`, and sent back with it). ``finishReason``: ``STOP`` -> end
of turn (tool use when the reply calls a function), ``MAX_TOKENS`` -> max tokens, Google's filters -> content
filter. A stream has no end marker: the chunk with a ``finishReason`` ends it (its usage read first).
"""

from __future__ import annotations

import json
from typing import Any

from agentcompass.models.wire import GeminiCandidate, GeminiFunctionCall, GeminiPart, GeminiResponse, GeminiUsage
from agentcompass.models.wire import gemini as _gemini_wire
from agentcompass.models.wire import gemini_request as _gemini

from . import _reply as r
from ._writer import Writer


def tokens(meta: GeminiUsage | None) -> r.Tokens:
    meta = meta or {}
    thoughts = r.as_int(meta.get("thoughtsTokenCount"))
    return r.Tokens(
        input=r.as_int(meta.get("promptTokenCount")) + r.as_int(meta.get("toolUsePromptTokenCount")),
        cached=r.as_int(meta.get("cachedContentTokenCount")),
        output=r.as_int(meta.get("candidatesTokenCount")) + thoughts,
        reasoning=thoughts,
    )


def stop_of(reason: str | None, has_calls: bool) -> str:
    if reason == "MAX_TOKENS":
        return r.MAX_TOKENS
    if reason in _gemini_wire.FILTERED:
        return r.CONTENT_FILTER
    return r.TOOL_USE if has_calls else r.END


def _call(fc: GeminiFunctionCall, signature: str = "") -> r.Block:
    call_id = str(fc.get("id") or r.new_id("call_"))
    if signature:
        _gemini.remember(call_id, signature)
    args = json.dumps(fc.get("args") or {}, ensure_ascii=False, separators=(",", ":"))
    return r.Block("tool", args, call_id, str(fc.get("name") or ""))


def _parts(data: GeminiResponse) -> tuple[GeminiCandidate, list[GeminiPart]]:
    candidate = ((data.get("candidates") or [{}])[0]) or {}
    return candidate, list((candidate.get("content") or {}).get("parts") or [])


def _head(data: GeminiResponse) -> r.Reply:
    return r.Reply(id=str(data.get("responseId") or ""), model=str(data.get("modelVersion") or ""))


def body(data: GeminiResponse) -> r.Reply:
    data = _gemini_wire.camel_keys(data)
    reply, (candidate, parts) = _head(data), _parts(data)
    for part in parts:
        if isinstance(part.get("functionCall"), dict):
            reply.blocks.append(_call(part["functionCall"], part.get("thoughtSignature") or ""))
        elif isinstance(part.get("text"), str):
            kind = "thinking" if part.get("thought") else "text"
            reply.blocks.append(r.Block(kind, part["text"], signature=part.get("thoughtSignature") or ""))
    reply.stop = stop_of(candidate.get("finishReason"), bool(reply.tools()))
    if data.get("usageMetadata"):
        reply.usage, reply.usage_known = tokens(data["usageMetadata"]), True
    return reply


class Stream:
    """Feeds Gemini chunks to a writer: a block opens when its kind of part first comes, a function call is one
    whole block, and the chunk carrying the finish reason ends the stream."""

    def __init__(self, writer: Writer[Any]) -> None:
        self.w = writer
        self.kind: str | None = None
        self.calls = 0

    def feed(self, event: str | None, data: Any) -> None:
        w = self.w
        if not isinstance(data, dict) or w.ended:
            return
        if "error" in data:
            err = data.get("error") or {}
            w.fail(502, str(err.get("message") if isinstance(err, dict) else err))
            return
        data = _gemini_wire.camel_keys(data)
        w.start(_head(data))
        candidate, parts = _parts(data)
        for part in parts:
            self._part(part)
        if data.get("usageMetadata"):
            w.usage(tokens(data["usageMetadata"]))
        if candidate.get("finishReason"):
            w.finish(stop_of(candidate["finishReason"], self.calls > 0))
            w.end()

    def _part(self, part: GeminiPart) -> None:
        w = self.w
        if isinstance(part.get("functionCall"), dict):
            block = _call(part["functionCall"], part.get("thoughtSignature") or "")
            w.open("tool", id=block.id, name=block.name, text=block.text)
            w.close()
            self.kind, self.calls = None, self.calls + 1
        elif isinstance(part.get("text"), str) and (part["text"] or part.get("thoughtSignature")):
            kind = "thinking" if part.get("thought") else "text"
            if self.kind != kind:
                self.kind = kind
                w.open(kind)
            w.delta(part["text"])
            if part.get("thoughtSignature"):
                w.signature(part["thoughtSignature"])
