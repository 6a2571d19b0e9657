"""The neutral reply as a Gemini API reply: a ``generateContent`` body, or the chunks of ``streamGenerateContent``
(SSE ``data:`` events without names).

Text -> ``text`` parts (streamed as each delta comes); thinking -> ``{text, thought: true}`` parts, only when the
request's ``thinkingConfig.includeThoughts`` asked for them (as Gemini does); a tool call -> a ``functionCall`` part
with its id, name and ``args`` (sent whole once its arguments are complete). Stop reasons: end of turn, tool use,
stop sequence -> ``STOP``; max tokens -> ``MAX_TOKENS``; refusal / content filter -> ``SAFETY``. The last chunk
carries ``finishReason`` and ``usageMetadata`` (``promptTokenCount`` with the cached tokens in it,
``cachedContentTokenCount``, ``candidatesTokenCount`` = output less reasoning, ``thoughtsTokenCount``). An error
after the first chunk is an ``{"error": {code, message, status}}`` chunk.
"""

from __future__ import annotations

from agentcompass.models.wire import (
    GeminiCandidate,
    GeminiFunctionCall,
    GeminiPart,
    GeminiRequest,
    GeminiResponse,
    GeminiUsage,
)
from agentcompass.models.wire import gemini as wire

from . import _gemini_in
from . import _reply as r
from ._writer import Writer

FINISH = {r.MAX_TOKENS: "MAX_TOKENS", r.REFUSAL: "SAFETY", r.CONTENT_FILTER: "SAFETY"}


def usage(t: r.Tokens) -> GeminiUsage:
    out: GeminiUsage = {
        "promptTokenCount": t.input,
        "candidatesTokenCount": max(t.output - t.reasoning, 0),
        "totalTokenCount": t.input + t.output,
    }
    if t.reasoning:
        out["thoughtsTokenCount"] = t.reasoning
    if t.cached:
        out["cachedContentTokenCount"] = t.cached
    return out


def _part(block: r.Block, thoughts: bool) -> GeminiPart | None:
    if block.kind == "text":
        return {"text": block.text}
    if block.kind == "thinking" and thoughts:
        return {"text": block.text, "thought": True}
    if block.kind == "tool":
        call: GeminiFunctionCall = {"name": block.name, "args": _gemini_in.loads(block.text)}
        if block.id:
            call["id"] = block.id
        return {"functionCall": call}
    return None


def _head(reply: r.Reply, request: GeminiRequest) -> GeminiResponse:
    if not reply.id:
        reply.id = r.new_id("")
    return {"modelVersion": str(request.get("model") or reply.model), "responseId": reply.id}


def body(reply: r.Reply, request: GeminiRequest) -> GeminiResponse:
    thoughts = _gemini_in.include_thoughts(request)
    parts = [p for p in (_part(b, thoughts) for b in reply.blocks) if p is not None]
    candidate: GeminiCandidate = {
        "content": {"role": "model", "parts": parts},
        "finishReason": FINISH.get(reply.stop, "STOP"),
    }
    return {"candidates": [{**candidate, "index": 0}], "usageMetadata": usage(reply.usage), **_head(reply, request)}


class StreamWriter(Writer[GeminiRequest]):
    def __init__(self, request: GeminiRequest) -> None:
        super().__init__(request)
        self.thoughts = _gemini_in.include_thoughts(request)

    def _chunk(self, parts: list[GeminiPart], finish: str | None = None) -> GeminiResponse:
        candidate: GeminiCandidate = {"content": {"role": "model", "parts": parts}}
        if finish is not None:
            candidate["finishReason"] = finish
        candidate["index"] = 0
        data: GeminiResponse = {"candidates": [candidate]}
        data.update(_head(self.reply, self.request))
        self.emit(None, data)
        return data

    def on_delta(self, block: r.Block, text: str) -> None:
        if block.kind == "text":
            self._chunk([{"text": text}])
        elif block.kind == "thinking" and self.thoughts:
            self._chunk([{"text": text, "thought": True}])

    def on_close(self, block: r.Block) -> None:
        if block.kind == "tool":
            self._chunk([_part(block, self.thoughts) or {}])

    def on_end(self) -> None:
        data = self._chunk([{"text": ""}], FINISH.get(self.reply.stop, "STOP"))
        data["usageMetadata"] = usage(self.reply.usage)

    def on_fail(self, status: int, message: str) -> None:
        self.emit(*wire.error_event(status, message))
