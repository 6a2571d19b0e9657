"""An Anthropic Messages reply (body or stream events) read into the neutral form."""

from __future__ import annotations

import json
from typing import Any

from agentcompass.models.wire import AnthropicBlock, AnthropicResponse, AnthropicUsage

from . import _reply as r
from ._writer import Writer

_KINDS = {"text": "text", "thinking": "thinking", "redacted_thinking": "redacted_thinking", "tool_use": "tool"}


def tokens(usage: AnthropicUsage | None, into: r.Tokens | None = None) -> r.Tokens:
    """Anthropic's counts (``input_tokens`` leaves out cache reads and writes) as neutral ones; ``into``: update
    those (a ``message_delta`` repeats only some of them)."""
    usage, t = usage or {}, into or r.Tokens()
    fresh, read, write = (
        usage.get(k) for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    )
    if any(v is not None for v in (fresh, read, write)):
        old_fresh = t.input - t.cached - t.cache_write
        t.cached = r.as_int(read) if read is not None else t.cached
        t.cache_write = r.as_int(write) if write is not None else t.cache_write
        t.input = (r.as_int(fresh) if fresh is not None else old_fresh) + t.cached + t.cache_write
    if usage.get("output_tokens") is not None:
        t.output = r.as_int(usage.get("output_tokens"))
    return t


def _block(block: AnthropicBlock) -> r.Block | None:
    kind = _KINDS.get(block.get("type"))
    if kind == "text":
        return r.Block("text", block.get("text") or "")
    if kind == "thinking":
        return r.Block("thinking", block.get("thinking") or "", signature=block.get("signature") or "")
    if kind == "redacted_thinking":
        return r.Block("redacted_thinking", signature=block.get("data") or "")
    if kind == "tool":
        args = json.dumps(block.get("input") or {}, ensure_ascii=False, separators=(",", ":"))
        return r.Block("tool", args, str(block.get("id") or ""), block.get("name") or "")
    return None  # server tool blocks: never asked for (hosted tools are not sent to the endpoint)


def body(data: AnthropicResponse) -> r.Reply:
    reply = r.Reply(id=str(data.get("id") or ""), model=str(data.get("model") or ""))
    reply.blocks = [b for b in map(_block, data.get("content") or []) if b is not None]
    reply.stop = data.get("stop_reason") or r.END
    reply.stop_sequence = data.get("stop_sequence")
    if data.get("usage"):
        reply.usage, reply.usage_known = tokens(data["usage"]), True
    return reply


class Stream:
    """Feeds Messages events to a writer (blocks map one to one)."""

    def __init__(self, writer: Writer[Any]) -> None:
        self.w = writer
        self.tokens = r.Tokens()
        self.open: dict[int, bool] = {}

    def feed(self, event: str | None, data: Any) -> None:
        kind = data.get("type") if isinstance(data, dict) else None
        w = self.w
        if kind == "message_start":
            message = data.get("message") or {}
            head = r.Reply(id=str(message.get("id") or ""), model=str(message.get("model") or ""))
            if message.get("usage"):
                head.usage, head.usage_known = tokens(message["usage"], self.tokens), True
            w.start(head)
        elif kind == "content_block_start":
            block: AnthropicBlock = data.get("content_block") or AnthropicBlock()
            self._start(data.get("index", 0), block)
        elif kind == "content_block_delta" and self.open.get(data.get("index", 0)):
            delta = data.get("delta") or {}
            dk = delta.get("type")
            if dk in ("text_delta", "thinking_delta", "input_json_delta"):
                w.delta(delta.get("text") or delta.get("thinking") or delta.get("partial_json") or "")
            elif dk == "signature_delta":
                w.signature(delta.get("signature") or "")
        elif kind == "content_block_stop" and self.open.pop(data.get("index", 0), False):
            w.close()
        elif kind == "message_delta":
            delta = data.get("delta") or {}
            w.finish(delta.get("stop_reason"), delta.get("stop_sequence"))
            if data.get("usage"):
                w.usage(tokens(data["usage"], self.tokens))
        elif kind == "message_stop":
            w.end()
        elif kind == "error":
            err = data.get("error") or {}
            w.fail(529 if err.get("type") == "overloaded_error" else 502, str(err.get("message") or err))

    def _start(self, index: int, block: AnthropicBlock) -> None:
        b = _block({**block, "input": None} if block.get("type") == "tool_use" else block)
        if b is None:
            return
        self.open[index] = True
        if b.kind == "tool":
            self.w.open("tool", id=b.id, name=b.name)
            if block.get("input"):  # a whole input in the start event (not streamed)
                self.w.delta(json.dumps(block["input"], ensure_ascii=False, separators=(",", ":")))
        else:
            self.w.open(b.kind, text=b.text)
            if b.signature:
                self.w.signature(b.signature)
