"""OpenAI Responses streams: ``response.created`` / ``response.in_progress``, per output item
``response.output_item.added`` ... ``response.output_item.done`` (text parts and function-call arguments in
between), then ``response.completed`` / ``response.incomplete`` / ``response.failed`` carrying the whole response;
every event has a ``sequence_number``."""

from __future__ import annotations

from typing import Any

from .._shapes.common import ApiErrorBody, ApiErrorDetail
from .._shapes.responses import Response, ResponsesEvent, ResponsesOutputItem

_END = {"completed": "response.completed", "incomplete": "response.incomplete", "failed": "response.failed"}


def error_body(status: int, message: str, code: str | None = None) -> ApiErrorBody:
    kind = "invalid_request_error" if 400 <= status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def error_event(status: int, message: str) -> tuple[str, ApiErrorBody]:
    code = "rate_limit_exceeded" if status == 429 else ("server_error" if status >= 500 else "invalid_request")
    return "error", {"type": "error", "code": code, "message": message, "param": None}


class _Seq:
    def __init__(self) -> None:
        self.events: list[tuple[str | None, Any]] = []

    def add(self, kind: str, **fields: Any) -> None:
        self.events.append((kind, {"type": kind, "sequence_number": len(self.events), **fields}))


def _message_item(seq: _Seq, item: ResponsesOutputItem, out: int) -> None:
    parts = item.get("content") or []
    seq.add("response.output_item.added", output_index=out, item={**item, "status": "in_progress", "content": []})
    for c, part in enumerate(parts):
        ids = {"item_id": item.get("id"), "output_index": out, "content_index": c}
        if part.get("type") == "output_text":
            seq.add("response.content_part.added", **ids, part={**part, "text": "", "annotations": []})
            seq.add("response.output_text.delta", **ids, delta=part.get("text", ""), logprobs=[])
            seq.add("response.output_text.done", **ids, text=part.get("text", ""), logprobs=[])
        elif part.get("type") == "refusal":
            seq.add("response.content_part.added", **ids, part={**part, "refusal": ""})
            seq.add("response.refusal.delta", **ids, delta=part.get("refusal", ""))
            seq.add("response.refusal.done", **ids, refusal=part.get("refusal", ""))
        else:
            seq.add("response.content_part.added", **ids, part=part)
        seq.add("response.content_part.done", **ids, part=part)
    seq.add("response.output_item.done", output_index=out, item=item)


def _function_item(seq: _Seq, item: ResponsesOutputItem, out: int) -> None:
    args = item.get("arguments", "")
    seq.add("response.output_item.added", output_index=out, item={**item, "status": "in_progress", "arguments": ""})
    ids = {"item_id": item.get("id"), "output_index": out}
    seq.add("response.function_call_arguments.delta", **ids, delta=args)
    seq.add("response.function_call_arguments.done", **ids, name=item.get("name"), arguments=args)
    seq.add("response.output_item.done", output_index=out, item=item)


def _reasoning_item(seq: _Seq, item: ResponsesOutputItem, out: int) -> None:
    seq.add("response.output_item.added", output_index=out, item={**item, "summary": []})
    for s, part in enumerate(item.get("summary") or []):
        ids = {"item_id": item.get("id"), "output_index": out, "summary_index": s}
        seq.add("response.reasoning_summary_part.added", **ids, part={**part, "text": ""})
        seq.add("response.reasoning_summary_text.delta", **ids, delta=part.get("text", ""))
        seq.add("response.reasoning_summary_text.done", **ids, text=part.get("text", ""))
        seq.add("response.reasoning_summary_part.done", **ids, part=part)
    seq.add("response.output_item.done", output_index=out, item=item)


def synthesize(body: Response, **_: Any) -> list[tuple[str | None, Any]]:
    seq = _Seq()
    opening: Response = {**body, "status": "in_progress", "output": [], "usage": None, "incomplete_details": None}
    seq.add("response.created", response=opening)
    seq.add("response.in_progress", response=opening)
    for out, item in enumerate(body.get("output") or []):
        kind = item.get("type")
        if kind == "message":
            _message_item(seq, item, out)
        elif kind == "function_call":
            _function_item(seq, item, out)
        elif kind == "reasoning":
            _reasoning_item(seq, item, out)
        else:
            seq.add("response.output_item.added", output_index=out, item=item)
            seq.add("response.output_item.done", output_index=out, item=item)
    seq.add(_END.get(str(body.get("status")), "response.completed"), response=body)
    return seq.events


class Assembler:
    """The response a stream amounts to: the one its final event carries (else what the items said so far)."""

    def __init__(self) -> None:
        self.response: Response | None = None
        self.items: dict[int, ResponsesOutputItem] = {}
        self.error: ApiErrorBody | ApiErrorDetail | None = None
        self.done = False

    def feed(self, event: str | None, data: Any) -> None:
        ev: ResponsesEvent = data  # read only when a dict (kind is None otherwise)
        kind = ev.get("type") if isinstance(data, dict) else None
        if kind in ("response.created", "response.in_progress", "response.queued"):
            self.response = ev.get("response") or {}  # never changed here: kept as sent
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            self.response, self.done = ev.get("response") or {}, True
            if kind == "response.failed":
                self.error = (self.response or {}).get("error") or {"message": "response.failed"}
        elif kind == "response.output_item.done":
            self.items[ev.get("output_index", len(self.items))] = ev.get("item") or {}
        elif kind == "error":
            self.error = data

    def body(self) -> Response | None:
        if self.response is None:
            return None
        if not self.done and self.items:
            return {**self.response, "output": [self.items[i] for i in sorted(self.items)]}
        return self.response
