"""Anthropic Messages on the wire (``POST /v1/messages``): the request, its messages, content blocks and tools,
the ``message`` reply and its SSE events (field names as in ``anthropic.types``); every field is optional, as
the code reads bodies it did not write."""

from __future__ import annotations

from typing import TypedDict

from .common import ApiErrorDetail, JsonObject


class AnthropicSource(TypedDict, total=False):
    """The ``source`` of an Anthropic image or document block (``base64`` with ``media_type``/``data``, ``url``)."""

    type: str
    media_type: str
    data: str
    url: str


class AnthropicBlock(TypedDict, total=False):
    """An Anthropic Messages content block (``text``, ``image``, ``tool_use``, ``tool_result``, ``thinking``,
    ``redacted_thinking``, ...), as sent in a message or returned in a reply (an id or name a translated request
    left out: None)."""

    type: str
    text: str
    source: AnthropicSource
    id: str | None
    name: str | None
    input: JsonObject | None
    tool_use_id: str | None
    content: str | list[AnthropicBlock]
    is_error: bool
    thinking: str
    signature: str
    data: str
    cache_control: JsonObject
    citations: list[JsonObject] | None
    tool_name: str


class AnthropicOutputConfig(TypedDict, total=False):
    """An Anthropic Messages ``output_config`` (``effort``; ``format``: a JSON schema the reply follows)."""

    effort: str | None
    format: JsonObject | None


class AnthropicMessage(TypedDict, total=False):
    """An Anthropic Messages message of a request (``role`` user/assistant, content a string or blocks; a
    ``system`` message with its ``clear_at`` and ``output_config``)."""

    role: str
    content: str | list[AnthropicBlock]
    clear_at: str
    output_config: AnthropicOutputConfig


class AnthropicContextEdit(TypedDict, total=False):
    """An edit of an Anthropic ``context_management`` (``type`` such as ``clear_thinking_20251015``)."""

    type: str
    keep: JsonObject | str
    trigger: JsonObject
    clear_at_least: JsonObject
    exclude_tools: list[str]
    clear_tool_inputs: bool | list[str]


class AnthropicContextManagement(TypedDict, total=False):
    """An Anthropic Messages request's ``context_management``."""

    edits: list[AnthropicContextEdit]


class AnthropicTool(TypedDict, total=False):
    """An Anthropic Messages tool definition (a custom tool's ``input_schema``; a server tool's ``type``; a name
    a translated request left out: None)."""

    type: str
    name: str | None
    description: str
    input_schema: JsonObject
    cache_control: JsonObject
    defer_loading: bool
    eager_input_streaming: bool
    strict: bool


class AnthropicToolChoice(TypedDict, total=False):
    """An Anthropic Messages ``tool_choice`` (``auto``, ``any``, ``tool`` with ``name``, ``none``; a name a
    translated request left out: None)."""

    type: str
    name: str | None
    disable_parallel_tool_use: bool


class AnthropicThinking(TypedDict, total=False):
    """An Anthropic Messages request's ``thinking`` (``enabled`` with ``budget_tokens``, ``adaptive``, ``disabled``)."""

    type: str
    budget_tokens: int
    display: str


class AnthropicMetadata(TypedDict, total=False):
    """An Anthropic Messages request's ``metadata``."""

    user_id: str


class AnthropicRequest(TypedDict, total=False):
    """An Anthropic Messages request body, as sent on the wire."""

    model: str
    messages: list[AnthropicMessage]
    system: str | list[AnthropicBlock]
    max_tokens: int
    tools: list[AnthropicTool]
    tool_choice: AnthropicToolChoice
    thinking: AnthropicThinking
    stream: bool
    temperature: float
    top_p: float
    top_k: int
    stop_sequences: list[str]
    metadata: AnthropicMetadata
    output_config: AnthropicOutputConfig
    context_management: AnthropicContextManagement


class AnthropicUsage(TypedDict, total=False):
    """The ``usage`` of an Anthropic Messages reply (or of its ``message_start``/``message_delta`` events)."""

    input_tokens: int | None
    output_tokens: int
    cache_creation_input_tokens: int | None
    cache_read_input_tokens: int | None
    server_tool_use: JsonObject | None
    service_tier: str | None


class AnthropicResponse(TypedDict, total=False):
    """An Anthropic Messages reply body (``type: message``)."""

    id: str
    type: str
    role: str
    model: str
    content: list[AnthropicBlock]
    stop_reason: str | None
    stop_sequence: str | None
    usage: AnthropicUsage
    context_management: JsonObject | None


class AnthropicDelta(TypedDict, total=False):
    """The ``delta`` of an Anthropic stream event (a block's ``text_delta``/``input_json_delta``/...; the
    message's ``stop_reason`` in ``message_delta``)."""

    type: str
    text: str
    partial_json: str
    thinking: str
    signature: str
    citation: JsonObject
    stop_reason: str | None
    stop_sequence: str | None


class AnthropicEvent(TypedDict, total=False):
    """An Anthropic Messages SSE event's data (``message_start``, ``content_block_*``, ``message_delta``, ...)."""

    type: str
    message: AnthropicResponse
    index: int
    content_block: AnthropicBlock
    delta: AnthropicDelta
    usage: AnthropicUsage
    error: ApiErrorDetail
    context_management: JsonObject | None
