"""The shapes of what the response cache and replay keep: a call's canonical request, a stored reply, a
recorded call as replay reads it back from ``calls.jsonl``."""

from __future__ import annotations

from typing import TypedDict

from .._shapes.chat import ChatMessage, ChatTool


class CanonicalRequest(TypedDict, total=False):
    """A call's request as the cache and replay compare it (JSON values): a client call's chat-form
    ``messages``/``tools``/``params``, a gateway call's wire ``body`` (with its ``path`` and ``upstream`` API)."""

    protocol: str
    endpoint: str
    model: str
    messages: list[ChatMessage]
    tools: list[ChatTool]
    params: dict[str, object]
    body: dict[str, object]
    path: str
    upstream: str


class StoredReply(TypedDict, total=False):
    """A reply as stored by the cache and in a call record: what a harness reads of a ``ModelResponse``
    (``usage`` in the form ``Usage.from_dict`` reads; ``raw``: the reply body as received)."""

    text: str
    finish_reason: str
    tool_calls: list[dict[str, str]]  # {id, name, arguments}: a ToolCall as JSON
    usage: dict[str, object]
    raw: object


class RecordedError(TypedDict, total=False):
    """The error of a failed call in its record: the exception's class name and message."""

    type: str
    message: str


class RecordedCall(TypedDict, total=False):
    """A recorded call as replay reads it back (gateway calls with the ``digest`` they are matched on)."""

    seq: int
    request: CanonicalRequest
    response: StoredReply | None
    error: RecordedError | None
    digest: str
    http_status: int | None
