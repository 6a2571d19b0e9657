"""OpenAI Chat Completions streams: ``chat.completion.chunk`` data lines, then ``data: [DONE]``; with
``stream_options.include_usage`` a last chunk with ``choices: []`` carries the usage."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from .._shapes.chat import ChatChoice, ChatChunkChoice, ChatCompletion, ChatReplyMessage, ChatToolCall, ChatUsage
from .._shapes.common import ApiErrorBody

DONE = "[DONE]"


def error_body(status: int, message: str, code: str | None = None) -> ApiErrorBody:
    kind = "invalid_request_error" if 400 <= status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def error_event(status: int, message: str) -> tuple[None, ApiErrorBody]:
    return None, error_body(status, message)


def _chunk(body: Mapping[str, object], choices: list[ChatChunkChoice], **extra: object) -> dict[str, object]:
    head: dict[str, object] = {
        k: body[k] for k in ("id", "created", "model", "system_fingerprint", "service_tier") if k in body
    }
    return {**head, "object": "chat.completion.chunk", "choices": choices, **extra}


def _choice_chunks(body: ChatCompletion, choice: ChatChoice, usage_key: dict[str, object]) -> list[dict[str, object]]:
    index, message = choice.get("index", 0), choice.get("message") or {}
    first: ChatReplyMessage = {"role": message.get("role", "assistant"), "content": ""}
    if message.get("refusal") is not None:
        first["refusal"] = None
    out = [_chunk(body, [{"index": index, "delta": first, "logprobs": None, "finish_reason": None}], **usage_key)]

    def add(delta: ChatReplyMessage) -> None:
        out.append(
            _chunk(body, [{"index": index, "delta": delta, "logprobs": None, "finish_reason": None}], **usage_key)
        )

    if message.get("reasoning_content"):
        add({"reasoning_content": message["reasoning_content"]})
    if message.get("reasoning"):
        add({"reasoning": message["reasoning"]})
    if message.get("content"):
        add({"content": message["content"]})
    if message.get("refusal"):
        add({"refusal": message["refusal"]})
    for i, call in enumerate(message.get("tool_calls") or []):
        fn = call.get("function") or {}
        add(
            {
                "tool_calls": [
                    {
                        "index": i,
                        "id": call.get("id"),
                        "type": call.get("type", "function"),
                        "function": {"name": fn.get("name"), "arguments": fn.get("arguments", "")},
                    }
                ]
            }
        )
    last: ChatChunkChoice = {
        "index": index,
        "delta": {},
        "logprobs": None,
        "finish_reason": choice.get("finish_reason") or "stop",
    }
    out.append(_chunk(body, [last], **usage_key))
    return out


def synthesize(body: ChatCompletion, *, include_usage: bool = False, **_: Any) -> list[tuple[str | None, Any]]:
    usage_key: dict[str, object] = {"usage": None} if include_usage else {}
    chunks: list[dict[str, object]] = []
    for choice in body.get("choices") or []:
        chunks += _choice_chunks(body, choice, usage_key)
    if include_usage:
        chunks.append(_chunk(body, [], usage=body.get("usage")))
    return [(None, c) for c in chunks] + [(None, DONE)]


class Assembler:
    """The ``chat.completion`` a stream amounts to; ``usage_only`` tells whether the last chunk fed carried only
    the usage (the gateway drops it when the agent did not ask for it)."""

    def __init__(self) -> None:
        self.head: dict[str, object] | None = None  # the first chunk's fields but its choices and usage
        self.choices: dict[int, dict[str, Any]] = {}
        self.usage: ChatUsage | None = None
        self.error: dict[str, object] | None = None  # an error chunk as received (recorded whole)
        self.done = False

    def feed(self, event: str | None, data: Any) -> None:
        if data == DONE:
            self.done = True
            return
        if not isinstance(data, dict):
            return
        if "error" in data and "choices" not in data:
            self.error = data
            return
        if self.head is None:
            self.head = {k: v for k, v in data.items() if k not in ("choices", "usage", "object")}
        if data.get("usage"):
            self.usage = data["usage"]
        for choice in data.get("choices") or []:
            self._choice(choice)

    def _choice(self, choice: dict[str, Any]) -> None:
        slot = self.choices.setdefault(
            choice.get("index", 0), {"message": {"role": "assistant", "content": None}, "calls": {}}
        )
        message, delta = slot["message"], choice.get("delta") or {}
        for key, value in delta.items():
            if key == "tool_calls":
                for call in value or []:
                    self._call(slot["calls"], call)
            elif key == "role":
                message["role"] = value or "assistant"
            elif isinstance(value, str):
                message[key] = (message.get(key) or "") + value
            elif value is not None and key not in message:
                message[key] = copy.deepcopy(value)
        if choice.get("finish_reason") is not None:
            slot["finish_reason"] = choice["finish_reason"]
        if choice.get("logprobs") is not None:
            slot.setdefault("logprobs", []).append(choice["logprobs"])

    @staticmethod
    def _call(calls: dict[int, dict[str, Any]], call: ChatToolCall) -> None:
        held = calls.setdefault(
            call.get("index", len(calls)), {"id": None, "type": "function", "function": {"name": "", "arguments": ""}}
        )
        if call.get("id"):
            held["id"] = call["id"]
        if call.get("type"):
            held["type"] = call["type"]
        fn = call.get("function") or {}
        if fn.get("name"):
            held["function"]["name"] += fn["name"]
        if fn.get("arguments"):
            held["function"]["arguments"] += fn["arguments"]

    def body(self) -> dict[str, Any] | None:
        if self.head is None:
            return None
        choices = []
        for index in sorted(self.choices):
            slot = self.choices[index]
            message = dict(slot["message"])
            if slot["calls"]:
                message["tool_calls"] = [slot["calls"][i] for i in sorted(slot["calls"])]
            choices.append(
                {"index": index, "message": message, "finish_reason": slot.get("finish_reason"), "logprobs": None}
            )
        return {**self.head, "object": "chat.completion", "choices": choices, "usage": self.usage}
