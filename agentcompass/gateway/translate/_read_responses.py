"""An OpenAI Responses reply (a ``response`` body, or its stream events) read into the neutral form.

Output items: ``message`` -> text (a ``refusal`` part: a refusal), ``function_call`` -> a tool call (its
``call_id``), ``reasoning`` -> thinking (its summary text). ``status: incomplete`` for ``max_output_tokens`` -> max
tokens, for ``content_filter`` -> content filter; a function call -> tool use. Usage: ``input_tokens`` (cached ones
included), ``output_tokens`` (reasoning included). The stream's ``response.completed`` / ``incomplete`` ends it;
``response.failed`` and ``error`` events fail it.
"""

from __future__ import annotations

from typing import Any

from agentcompass.models.wire import Response, ResponsesOutputItem, ResponsesUsage

from . import _reply as r
from ._writer import Writer

_ENDS = ("response.completed", "response.incomplete", "response.failed")


def tokens(usage: ResponsesUsage | None) -> r.Tokens:
    usage = usage or {}
    return r.Tokens(
        input=r.as_int(usage.get("input_tokens")),
        cached=r.as_int((usage.get("input_tokens_details") or {}).get("cached_tokens")),
        output=r.as_int(usage.get("output_tokens")),
        reasoning=r.as_int((usage.get("output_tokens_details") or {}).get("reasoning_tokens")),
    )


def _stop(data: Response, has_calls: bool) -> str:
    reason = (data.get("incomplete_details") or {}).get("reason")
    if reason == "max_output_tokens":
        return r.MAX_TOKENS
    if reason == "content_filter":
        return r.CONTENT_FILTER
    return r.TOOL_USE if has_calls else r.END


def _blocks(item: ResponsesOutputItem) -> list[r.Block]:
    kind = item.get("type")
    if kind == "function_call":
        return [r.Block("tool", item.get("arguments") or "", str(item.get("call_id") or ""), item.get("name") or "")]
    if kind == "reasoning":
        text = "".join(p.get("text", "") for p in item.get("summary") or [])
        return [r.Block("thinking", text)] if text else []
    if kind == "message":
        parts = item.get("content") or []
        text = "".join(p.get("text") or p.get("refusal") or "" for p in parts)
        return [r.Block("text", text)] if text else []
    return []


def _head(data: Response) -> r.Reply:
    reply = r.Reply(id=str(data.get("id") or ""), model=str(data.get("model") or ""))
    reply.created = r.as_int(data.get("created_at")) or reply.created
    return reply


def body(data: Response) -> r.Reply:
    reply = _head(data)
    for item in data.get("output") or []:
        reply.blocks += _blocks(item)
    reply.stop = _stop(data, bool(reply.tools()))
    if any(p.get("type") == "refusal" for i in data.get("output") or [] for p in i.get("content") or []):
        reply.stop = r.REFUSAL
    if data.get("usage"):
        reply.usage, reply.usage_known = tokens(data["usage"]), True
    return reply


class Stream:
    """Feeds Responses events to a writer: an output item is a block (opened when added, its deltas as they come,
    closed when done)."""

    def __init__(self, writer: Writer[Any]) -> None:
        self.w = writer
        self.calls = 0

    def feed(self, event: str | None, data: Any) -> None:
        w = self.w
        if not isinstance(data, dict):
            return
        kind = data.get("type") or event
        if kind == "error" or kind == "response.failed":
            err = data.get("error") or (data.get("response") or {}).get("error") or {}
            w.fail(502, str(err.get("message") if isinstance(err, dict) else err or "the response failed"))
        elif kind in ("response.created", "response.in_progress"):
            w.start(_head(data.get("response") or {}))
        elif kind == "response.output_item.added":
            self._added(data.get("item") or {})
        elif kind in ("response.output_text.delta", "response.refusal.delta", "response.function_call_arguments.delta"):
            w.delta(str(data.get("delta") or ""))
        elif kind == "response.reasoning_summary_text.delta":
            w.delta(str(data.get("delta") or ""))
        elif kind == "response.output_item.done":
            w.close()
        elif kind in _ENDS:
            response: Response = data.get("response") or {}
            if response.get("usage"):
                w.usage(tokens(response["usage"]))
            w.finish(_stop(response, self.calls > 0))
            w.end()

    def _added(self, item: ResponsesOutputItem) -> None:
        kind = item.get("type")
        if kind == "function_call":
            self.calls += 1
            self.w.open("tool", id=str(item.get("call_id") or ""), name=item.get("name") or "")
        elif kind == "reasoning":
            self.w.open("thinking")
        elif kind == "message":
            self.w.open("text")
