"""The neutral reply as an OpenAI Chat Completions reply: a ``chat.completion`` body, or its chunks (the usage
chunk when the agent asked with ``stream_options.include_usage``, then ``[DONE]``)."""

from __future__ import annotations

from typing import Any

from agentcompass.models.wire import (
    ChatChunkChoice,
    ChatCompletion,
    ChatReplyMessage,
    ChatRequest,
    ChatToolCall,
    ChatUsage,
)
from agentcompass.models.wire import chat as wire

from . import _reply as r
from ._writer import Writer

FINISH = {r.END: "stop", r.STOP_SEQUENCE: "stop", r.PAUSE: "stop", r.MAX_TOKENS: "length", r.TOOL_USE: "tool_calls"}
FINISH.update({r.REFUSAL: "content_filter", r.CONTENT_FILTER: "content_filter"})


def usage(t: r.Tokens) -> ChatUsage:
    out: ChatUsage = {"prompt_tokens": t.input, "completion_tokens": t.output, "total_tokens": t.input + t.output}
    out["prompt_tokens_details"] = {"cached_tokens": t.cached}
    if t.reasoning:
        out["completion_tokens_details"] = {"reasoning_tokens": t.reasoning}
    return out


def _finish(reply: r.Reply) -> str:
    if reply.stop == r.END and reply.tools():
        return "tool_calls"
    return FINISH.get(reply.stop, "stop")


def _id(reply: r.Reply) -> str:
    if not reply.id:
        reply.id = r.new_id("chatcmpl-")
    return reply.id if reply.id.startswith("chatcmpl") else "chatcmpl-" + reply.id


def _call(block: r.Block) -> ChatToolCall:
    return {"id": block.id, "type": "function", "function": {"name": block.name, "arguments": block.text}}


def body(reply: r.Reply, request: ChatRequest) -> ChatCompletion:
    text = reply.text()
    message: ChatReplyMessage = {"role": "assistant", "content": text if text or not reply.tools() else None}
    thinking = "".join(b.text for b in reply.blocks if b.kind == "thinking")
    if thinking:
        message["reasoning_content"] = thinking
    if reply.tools():
        message["tool_calls"] = [_call(b) for b in reply.tools()]
    return {
        "id": _id(reply),
        "object": "chat.completion",
        "created": reply.created,
        "model": str(request.get("model") or reply.model),
        "choices": [{"index": 0, "message": message, "finish_reason": _finish(reply), "logprobs": None}],
        "usage": usage(reply.usage),
    }


class StreamWriter(Writer[ChatRequest]):
    def __init__(self, request: ChatRequest) -> None:
        super().__init__(request)
        self.include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
        self.n_tools = 0

    def _chunk(self, choices: list[ChatChunkChoice], **extra: Any) -> None:
        data = {"id": _id(self.reply), "object": "chat.completion.chunk", "created": self.reply.created}
        data["model"] = str(self.request.get("model") or self.reply.model)
        data["choices"] = choices
        if self.include_usage:
            data["usage"] = None
        data.update(extra)
        self.emit(None, data)

    def _delta(self, delta: ChatReplyMessage, finish: str | None = None) -> None:
        self._chunk([{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}])

    def on_start(self) -> None:
        self._delta({"role": "assistant", "content": ""})

    def on_open(self, block: r.Block) -> None:
        if block.kind == "tool":
            block.id = block.id or r.new_id("call_")
            opening: ChatToolCall = {"index": self.n_tools, "id": block.id, "type": "function"}
            opening["function"] = {"name": block.name, "arguments": ""}
            self._delta({"tool_calls": [opening]})
            self.n_tools += 1

    def on_delta(self, block: r.Block, text: str) -> None:
        if block.kind == "text":
            self._delta({"content": text})
        elif block.kind == "thinking":
            self._delta({"reasoning_content": text})
        elif block.kind == "tool":
            self._delta({"tool_calls": [{"index": self.n_tools - 1, "function": {"arguments": text}}]})

    def on_end(self) -> None:
        self._delta({}, _finish(self.reply))
        if self.include_usage:
            self._chunk([], usage=usage(self.reply.usage))
        self.emit(None, wire.DONE)

    def on_fail(self, status: int, message: str) -> None:
        self.emit(*wire.error_event(status, message))
