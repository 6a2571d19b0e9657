"""The neutral reply as an OpenAI Responses reply: a ``response`` body (with the request's settings echoed), or its
stream (``response.created`` ... ``response.completed``, every event with its ``sequence_number``).

Thinking becomes a ``reasoning`` item (the thinking as its summary); an Anthropic thinking block's signature (or a
redacted block's data) rides in the item's ``encrypted_content``, so that the agent sends it back and the next
Messages request carries the block again, as Anthropic requires with tool use. A call of a tool that was a
``custom`` (free-form) tool in the request becomes a ``custom_tool_call`` with its ``input``.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from agentcompass.models.wire import (
    AnthropicBlock,
    Response,
    ResponsesContent,
    ResponsesIncomplete,
    ResponsesOutputItem,
    ResponsesRequest,
    ResponsesUsage,
)
from agentcompass.models.wire import responses as wire

from . import _common, _namespaces
from . import _reply as r
from ._writer import Writer

SEALED = "acgw1:"  # encrypted_content made by the gateway (an Anthropic thinking block)


def seal(block: r.Block) -> str:
    inner = {"type": block.kind, "thinking": block.text, "signature": block.signature}
    if block.kind == "redacted_thinking":
        inner = {"type": block.kind, "data": block.signature}
    return SEALED + base64.b64encode(json.dumps(inner).encode()).decode()


def unseal(text: Any) -> AnthropicBlock | None:
    """The Anthropic block sealed in a reasoning item's ``encrypted_content``, None when not the gateway's."""
    if not isinstance(text, str) or not text.startswith(SEALED):
        return None
    try:
        return json.loads(base64.b64decode(text[len(SEALED) :]))
    except ValueError:
        return None


def usage(t: r.Tokens) -> ResponsesUsage:
    return {
        "input_tokens": t.input,
        "input_tokens_details": {"cached_tokens": t.cached},
        "output_tokens": t.output,
        "output_tokens_details": {"reasoning_tokens": t.reasoning},
        "total_tokens": t.input + t.output,
    }


def custom_tools(request: ResponsesRequest) -> set[str | None]:
    """The (flat) names of the request's custom tools."""
    return {t.get("name") for t in _namespaces.tools(request) if isinstance(t, dict) and t.get("type") == "custom"}


class Items:
    """Output items made from blocks (ids are made once per block)."""

    def __init__(self, request: ResponsesRequest) -> None:
        self.custom = custom_tools(request)
        self.spaced = _namespaces.members(request)
        self.ids: dict[int, str] = {}

    def name(self, block: r.Block) -> ResponsesOutputItem:
        """A call's ``name`` (and ``namespace``, for a tool of a namespace tool)."""
        if block.name in self.spaced:
            namespace, tool = self.spaced[block.name]
            return {"name": tool.get("name"), "namespace": namespace}
        return {"name": block.name}

    def item_id(self, block: r.Block, prefix: str) -> str:
        return self.ids.setdefault(id(block), r.new_id(prefix))

    def item(self, block: r.Block, done: bool = True) -> ResponsesOutputItem:
        status = "completed" if done else "in_progress"
        if block.kind == "text":
            parts: list[ResponsesContent] = (
                [{"type": "output_text", "text": block.text, "annotations": [], "logprobs": []}] if done else []
            )
            out: ResponsesOutputItem = {
                "id": self.item_id(block, "msg_"),
                "type": "message",
                "status": status,
                "role": "assistant",
            }
            return {**out, "content": parts}
        if block.kind in ("thinking", "redacted_thinking"):
            out = {"id": self.item_id(block, "rs_"), "type": "reasoning", "summary": []}
            if done and block.text:
                out["summary"] = [{"type": "summary_text", "text": block.text}]
            if done and block.signature:
                out["encrypted_content"] = seal(block)
            return out
        call_id = block.id or r.new_id("call_")
        block.id = call_id
        if block.name in self.custom:
            out = {"id": self.item_id(block, "ctc_"), "type": "custom_tool_call", "status": status}
            text = str(_common.arguments(block.text).get("input", block.text)) if done else ""
            return {**out, "call_id": call_id, **self.name(block), "input": text}
        out = {"id": self.item_id(block, "fc_"), "type": "function_call", "status": status, "call_id": call_id}
        return {**out, **self.name(block), "arguments": block.text if done else ""}


def _status(reply: r.Reply) -> tuple[str, ResponsesIncomplete | None]:
    if reply.stop == r.MAX_TOKENS:
        return "incomplete", {"reason": "max_output_tokens"}
    if reply.stop == r.CONTENT_FILTER:
        return "incomplete", {"reason": "content_filter"}
    return "completed", None


def _id(reply: r.Reply) -> str:
    if not reply.id:
        reply.id = r.new_id("resp_")
    return reply.id if reply.id.startswith("resp") else "resp_" + reply.id


def body(reply: r.Reply, request: ResponsesRequest, items: Items | None = None, done: bool = True) -> Response:
    items = items or Items(request)
    status, incomplete = _status(reply) if done else ("in_progress", None)
    return {
        "id": _id(reply),
        "object": "response",
        "created_at": reply.created,
        "status": status,
        "error": None,
        "incomplete_details": incomplete,
        "instructions": request.get("instructions"),
        "max_output_tokens": request.get("max_output_tokens"),
        "model": str(request.get("model") or reply.model),
        "output": [items.item(b) for b in reply.blocks] if done else [],
        "parallel_tool_calls": request.get("parallel_tool_calls", True),
        "previous_response_id": None,
        "reasoning": request.get("reasoning") or {"effort": None, "summary": None},
        "store": False,
        "temperature": request.get("temperature"),
        "text": request.get("text") or {"format": {"type": "text"}},
        "tool_choice": request.get("tool_choice", "auto"),
        "tools": request.get("tools") or [],
        "top_p": request.get("top_p"),
        "truncation": "disabled",
        "usage": usage(reply.usage) if done else None,
        "metadata": request.get("metadata") or {},
    }


class StreamWriter(Writer[ResponsesRequest]):
    def __init__(self, request: ResponsesRequest) -> None:
        super().__init__(request)
        self.items = Items(request)
        self.seq = 0

    def add(self, kind: str, **fields: Any) -> None:
        self.emit(kind, {"type": kind, "sequence_number": self.seq, **fields})
        self.seq += 1

    def _ids(self, block: r.Block) -> dict[str, str | int]:
        item = self.items.item(block, done=False)
        return {"item_id": item["id"], "output_index": len(self.reply.blocks) - 1}

    def on_start(self) -> None:
        skeleton = body(self.reply, self.request, self.items, done=False)
        self.add("response.created", response=skeleton)
        self.add("response.in_progress", response=skeleton)

    def on_open(self, block: r.Block) -> None:
        item = self.items.item(block, done=False)
        ids = self._ids(block)
        self.add("response.output_item.added", output_index=ids["output_index"], item=item)
        if block.kind == "text":
            part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            self.add("response.content_part.added", **ids, content_index=0, part=part)
        elif block.kind == "thinking":
            part = {"type": "summary_text", "text": ""}
            self.add("response.reasoning_summary_part.added", **ids, summary_index=0, part=part)

    def on_delta(self, block: r.Block, text: str) -> None:
        ids = self._ids(block)
        if block.kind == "text":
            self.add("response.output_text.delta", **ids, content_index=0, delta=text, logprobs=[])
        elif block.kind == "thinking":
            self.add("response.reasoning_summary_text.delta", **ids, summary_index=0, delta=text)
        elif block.kind == "tool" and block.name not in self.items.custom:
            self.add("response.function_call_arguments.delta", **ids, delta=text)

    def on_close(self, block: r.Block) -> None:
        ids, item = self._ids(block), self.items.item(block)
        if block.kind == "text":
            part = item["content"][0]
            self.add("response.output_text.done", **ids, content_index=0, text=block.text, logprobs=[])
            self.add("response.content_part.done", **ids, content_index=0, part=part)
        elif block.kind == "thinking":
            part = {"type": "summary_text", "text": block.text}
            self.add("response.reasoning_summary_text.done", **ids, summary_index=0, text=block.text)
            self.add("response.reasoning_summary_part.done", **ids, summary_index=0, part=part)
        elif block.kind == "tool" and item["type"] == "custom_tool_call":
            self.add("response.custom_tool_call_input.delta", **ids, delta=item["input"])
            self.add("response.custom_tool_call_input.done", **ids, input=item["input"])
        elif block.kind == "tool":
            self.add("response.function_call_arguments.done", **ids, name=item["name"], arguments=block.text)
        self.add("response.output_item.done", output_index=ids["output_index"], item=item)

    def on_end(self) -> None:
        done = body(self.reply, self.request, self.items)
        self.add("response.completed" if done["status"] == "completed" else "response.incomplete", response=done)

    def on_fail(self, status: int, message: str) -> None:
        event, data = wire.error_event(status, message)
        self.add(event, **{k: v for k, v in data.items() if k != "type"})
        failed = {**body(self.reply, self.request, self.items, done=False), "status": "failed"}
        failed["error"] = {"code": data.get("code"), "message": message}
        self.add("response.failed", response=failed)
