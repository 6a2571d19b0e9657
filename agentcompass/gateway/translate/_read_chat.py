"""An OpenAI Chat Completions reply (body or stream chunks) read into the neutral form."""

from __future__ import annotations

from typing import Any

from agentcompass.models.wire import ChatChunkChoice, ChatCompletion, ChatReplyMessage, ChatUsage

from . import _reply as r
from ._writer import Writer

STOP = {
    "stop": r.END,
    "length": r.MAX_TOKENS,
    "tool_calls": r.TOOL_USE,
    "function_call": r.TOOL_USE,
    "content_filter": r.CONTENT_FILTER,
}


def tokens(usage: ChatUsage | None) -> r.Tokens:
    usage = usage or {}
    details = usage.get("prompt_tokens_details") or {}
    out = usage.get("completion_tokens_details") or {}
    return r.Tokens(
        input=r.as_int(usage.get("prompt_tokens")),
        cached=r.as_int(details.get("cached_tokens")),
        output=r.as_int(usage.get("completion_tokens")),
        reasoning=r.as_int(out.get("reasoning_tokens")),
    )


def _reasoning(message: ChatReplyMessage) -> str:
    return message.get("reasoning_content") or message.get("reasoning") or ""


def body(data: ChatCompletion) -> r.Reply:
    choice = (data.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    reply = r.Reply(id=str(data.get("id") or ""), model=str(data.get("model") or ""))
    reply.created = r.as_int(data.get("created")) or reply.created
    if _reasoning(message):
        reply.blocks.append(r.Block("thinking", _reasoning(message)))
    content = message.get("content")
    if isinstance(content, list):
        content = "".join(p.get("text") or "" for p in content if isinstance(p, dict))
    if content or message.get("refusal"):
        reply.blocks.append(r.Block("text", content or message.get("refusal") or ""))
    for call in message.get("tool_calls") or []:
        fn = call.get("function") or {}
        reply.blocks.append(r.Block("tool", fn.get("arguments") or "", str(call.get("id") or ""), fn.get("name", "")))
    reply.stop = STOP.get(choice.get("finish_reason") or "stop", r.END)
    if message.get("refusal") and not content:
        reply.stop = r.REFUSAL
    if data.get("usage"):
        reply.usage, reply.usage_known = tokens(data["usage"]), True
    return reply


class Stream:
    """Feeds chunks of a chat stream to a writer. Chat has no block boundaries: a block opens when its kind of
    delta first comes (reasoning, content, each tool call index) and closes when another begins."""

    def __init__(self, writer: Writer[Any]) -> None:
        self.w = writer
        self.kind: tuple[str, int] | None = None  # the open block: ("thinking" | "text", 0) or ("tool", index)

    def feed(self, event: str | None, data: Any) -> None:
        w = self.w
        if data == "[DONE]":
            w.end()
            return
        if not isinstance(data, dict):
            return
        if "error" in data and "choices" not in data:
            err = data.get("error") or {}
            w.fail(502, str(err.get("message") if isinstance(err, dict) else err))
            return
        w.start(
            r.Reply(
                id=str(data.get("id") or ""), model=str(data.get("model") or ""), created=r.as_int(data.get("created"))
            )
        )
        for choice in data.get("choices") or []:
            if choice.get("index", 0) == 0:
                self._choice(choice)
        if data.get("usage"):
            w.usage(tokens(data["usage"]))

    def _switch(self, kind: tuple[str, int], **opening: str) -> None:
        if self.kind != kind:
            self.kind = kind
            self.w.open(kind[0], **opening)

    def _choice(self, choice: ChatChunkChoice) -> None:
        delta = choice.get("delta") or {}
        thinking = delta.get("reasoning_content") or delta.get("reasoning")
        if thinking:
            self._switch(("thinking", 0))
            self.w.delta(thinking)
        text = delta.get("content") or delta.get("refusal")
        if text:
            self._switch(("text", 0))
            self.w.delta(text)
        for call in delta.get("tool_calls") or []:
            fn = call.get("function") or {}
            key = ("tool", r.as_int(call.get("index")))
            if self.kind != key:
                self._switch(key, id=str(call.get("id") or ""), name=fn.get("name") or "")
            self.w.delta(fn.get("arguments") or "")
        reason = choice.get("finish_reason")
        if reason:
            self.w.finish(STOP.get(reason, r.END))
