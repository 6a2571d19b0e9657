"""Anthropic Messages streams: ``message_start``, ``content_block_start`` / ``_delta`` / ``_stop`` per block,
``message_delta`` (stop reason, output usage), ``message_stop``; ``ping`` and ``error`` events."""

from __future__ import annotations

import json
from typing import Any

from .._shapes.common import ApiErrorBody
from .._shapes.messages import AnthropicBlock, AnthropicDelta, AnthropicEvent, AnthropicResponse

_ERROR_TYPE = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error"}
_ERROR_TYPE.update({404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 529: "overloaded_error"})


def error_type(status: int) -> str:
    return _ERROR_TYPE.get(status, "api_error")


def error_body(status: int, message: str) -> ApiErrorBody:
    return {"type": "error", "error": {"type": error_type(status), "message": message}}


def error_event(status: int, message: str) -> tuple[str, ApiErrorBody]:
    return "error", error_body(status, message)


def _deltas(block: AnthropicBlock) -> tuple[AnthropicBlock, list[AnthropicDelta]]:
    """A block's opening form and the deltas that complete it."""
    kind = block.get("type")
    if kind == "text":
        return {**block, "text": ""}, [{"type": "text_delta", "text": block.get("text", "")}]
    if kind in ("tool_use", "server_tool_use"):
        args = json.dumps(block.get("input") or {}, separators=(",", ":"), ensure_ascii=False)
        return {**block, "input": {}}, [{"type": "input_json_delta", "partial_json": args}]
    if kind == "thinking":
        out: list[AnthropicDelta] = [{"type": "thinking_delta", "thinking": block.get("thinking", "")}]
        if block.get("signature"):
            out.append({"type": "signature_delta", "signature": block["signature"]})
        return {**block, "thinking": "", "signature": ""}, out
    return block, []  # redacted_thinking and others come whole in their start event


def synthesize(body: AnthropicResponse, **_: Any) -> list[tuple[str | None, Any]]:
    usage = (body.get("usage") or {}).copy()
    start = {**body, "content": [], "stop_reason": None, "stop_sequence": None}
    start["usage"] = {**usage, "output_tokens": min(int(usage.get("output_tokens", 0) or 0), 1)}
    events: list[tuple[str | None, Any]] = [("message_start", {"type": "message_start", "message": start})]
    for i, block in enumerate(body.get("content") or []):
        opening, deltas = _deltas(block)
        events.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": opening}))
        if i == 0:
            events.append(("ping", {"type": "ping"}))
        for delta in deltas:
            events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    delta = {"stop_reason": body.get("stop_reason"), "stop_sequence": body.get("stop_sequence")}
    events.append(("message_delta", {"type": "message_delta", "delta": delta, "usage": usage}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


class Assembler:
    """The ``message`` a stream amounts to (``body()``); ``error`` holds an in-stream error event's body."""

    def __init__(self) -> None:
        self.message: dict[str, Any] | None = None  # grows as the events come: any field the stream carries
        self.error: ApiErrorBody | None = None
        self._json: dict[int, list[str]] = {}
        self.done = False

    def feed(self, event: str | None, data: Any) -> None:
        ev: AnthropicEvent = data  # read only when a dict (kind is None otherwise)
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "message_start":
            message = data.get("message") or {}  # copied where the stream's later events change it
            self.message = {**message, "content": list(message.get("content") or [])}
            if isinstance(message.get("usage"), dict):
                self.message["usage"] = dict(message["usage"])
        elif kind == "error":
            self.error = data
        elif self.message is None:
            return
        elif kind == "content_block_start":
            blocks = self.message["content"]
            while len(blocks) <= data.get("index", len(blocks)):
                blocks.append({})
            block = dict(data.get("content_block") or {})
            if isinstance(block.get("citations"), list):
                block["citations"] = list(block["citations"])
            blocks[data["index"]] = block
        elif kind == "content_block_delta":
            self._delta(ev.get("index", 0), ev.get("delta") or {})
        elif kind == "content_block_stop":
            self._close(data.get("index", 0))
        elif kind == "message_delta":
            self.message.update({k: v for k, v in (data.get("delta") or {}).items()})
            usage = self.message.setdefault("usage", {})
            usage.update({k: v for k, v in (data.get("usage") or {}).items() if v is not None})
        elif kind == "message_stop":
            self.done = True

    def _delta(self, index: int, delta: AnthropicDelta) -> None:
        block = self.message["content"][index]
        kind = delta.get("type")
        if kind == "text_delta":
            block["text"] = block.get("text", "") + delta.get("text", "")
        elif kind == "input_json_delta":
            self._json.setdefault(index, []).append(delta.get("partial_json", ""))
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta.get("thinking", "")
        elif kind == "signature_delta":
            block["signature"] = block.get("signature", "") + delta.get("signature", "")
        elif kind == "citations_delta":
            block.setdefault("citations", []).append(delta.get("citation"))

    def _close(self, index: int) -> None:
        parts = self._json.pop(index, None)
        if parts is not None:
            text = "".join(parts)
            try:
                self.message["content"][index]["input"] = json.loads(text) if text else {}
            except ValueError:
                self.message["content"][index]["input"] = {"_unparsed": text}

    def body(self) -> dict[str, Any] | None:
        return self.message
