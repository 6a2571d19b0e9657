"""The neutral reply as an Anthropic Messages reply: a ``message`` body, or its stream (``message_start`` ...
``message_stop``). With ``thinking.display: omitted`` in the request, thinking blocks come without their text (as
Anthropic returns them); a request with ``context_management`` gets the reply's ``context_management`` (no edit
applied: the translations refuse every edit that would act)."""

from __future__ import annotations

from agentcompass.models.wire import AnthropicBlock, AnthropicDelta, AnthropicRequest, AnthropicResponse, AnthropicUsage
from agentcompass.models.wire import messages as wire

from . import _common
from . import _reply as r
from ._writer import Writer


def usage(t: r.Tokens) -> AnthropicUsage:
    return {
        "input_tokens": max(0, t.input - t.cached - t.cache_write),
        "output_tokens": t.output,
        "cache_creation_input_tokens": t.cache_write,
        "cache_read_input_tokens": t.cached,
    }


def _stop(reply: r.Reply) -> str:
    if reply.stop == r.CONTENT_FILTER:
        return r.REFUSAL
    if reply.stop == r.END and reply.tools():
        return r.TOOL_USE
    return reply.stop


def omitted(request: AnthropicRequest) -> bool:
    """Whether the agent asked for thinking blocks without their text."""
    return (request.get("thinking") or {}).get("display") == "omitted"


def content(block: r.Block, hide_thinking: bool = False) -> AnthropicBlock:
    if block.kind == "text":
        return {"type": "text", "text": block.text}
    if block.kind == "thinking":
        return {"type": "thinking", "thinking": "" if hide_thinking else block.text, "signature": block.signature}
    if block.kind == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.signature}
    return {
        "type": "tool_use",
        "id": block.id or r.new_id("toolu_"),
        "name": block.name,
        "input": _common.arguments(block.text),
    }


def _head(reply: r.Reply, model: str) -> AnthropicResponse:
    return {"id": _id(reply), "type": "message", "role": "assistant", "model": model}


def _id(reply: r.Reply) -> str:
    if not reply.id:
        reply.id = r.new_id("msg_")
    return reply.id if reply.id.startswith("msg") else "msg_" + reply.id


def _context(request: AnthropicRequest) -> AnthropicResponse:
    return {"context_management": {"applied_edits": []}} if request.get("context_management") is not None else {}


def body(reply: r.Reply, request: AnthropicRequest) -> AnthropicResponse:
    return {
        **_head(reply, str(request.get("model") or reply.model)),
        "content": [content(b, omitted(request)) for b in reply.blocks],
        "stop_reason": _stop(reply),
        "stop_sequence": reply.stop_sequence,
        "usage": usage(reply.usage),
        **_context(request),
    }


class StreamWriter(Writer[AnthropicRequest]):
    def on_start(self) -> None:
        start = {**_head(self.reply, str(self.request.get("model") or self.reply.model)), "content": []}
        start.update(stop_reason=None, stop_sequence=None, usage={**usage(self.reply.usage), "output_tokens": 0})
        self.emit("message_start", {"type": "message_start", "message": start})

    def on_open(self, block: r.Block) -> None:
        index = len(self.reply.blocks) - 1
        opening = content(block)
        if block.kind == "text":
            opening["text"] = ""
        elif block.kind == "thinking":
            opening.update({"thinking": "", "signature": ""})
        elif block.kind == "tool":
            opening["input"] = {}
            block.id = opening["id"] or ""  # always set: content() makes one up
        self.emit("content_block_start", {"type": "content_block_start", "index": index, "content_block": opening})

    def _delta(self, delta: AnthropicDelta) -> None:
        index = len(self.reply.blocks) - 1
        self.emit("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})

    def on_delta(self, block: r.Block, text: str) -> None:
        if block.kind == "text":
            self._delta({"type": "text_delta", "text": text})
        elif block.kind == "thinking" and not omitted(self.request):
            self._delta({"type": "thinking_delta", "thinking": text})
        elif block.kind == "tool":
            self._delta({"type": "input_json_delta", "partial_json": text})

    def on_close(self, block: r.Block) -> None:
        if block.kind == "thinking" and block.signature:
            self._delta({"type": "signature_delta", "signature": block.signature})
        index = len(self.reply.blocks) - 1
        self.emit("content_block_stop", {"type": "content_block_stop", "index": index})

    def on_end(self) -> None:
        delta = {"stop_reason": _stop(self.reply), "stop_sequence": self.reply.stop_sequence}
        last = {"type": "message_delta", "delta": delta, "usage": usage(self.reply.usage), **_context(self.request)}
        self.emit("message_delta", last)
        self.emit("message_stop", {"type": "message_stop"})

    def on_fail(self, status: int, message: str) -> None:
        self.emit(*wire.error_event(status, message))
