"""What the shapes of the wire formats share: a JSON object passed through whole, and the error bodies."""

from __future__ import annotations

from typing import TypedDict

JsonObject = dict[str, object]
"""A JSON object carried whole (a JSON Schema, metadata): never read into by the wire code."""


class ApiErrorDetail(TypedDict, total=False):
    """The ``error`` of an API's error body (OpenAI: message/type/param/code; Anthropic: type/message; Gemini:
    code/message/status)."""

    message: str
    type: str
    param: str | None
    code: str | int | None
    status: str


class ApiErrorBody(TypedDict, total=False):
    """An API's error body (``{"error": {...}}``; Anthropic's with ``type: error``), or an in-stream error event."""

    type: str
    error: ApiErrorDetail
    message: str
    code: str | None
    param: str | None
    sequence_number: int
