"""OpenAI Responses on the wire (``POST /v1/responses``): the request, its input items and tools, the
``response`` reply with its output items, and its SSE events (field names as in ``openai.types.responses``);
every field is optional, as the code reads bodies it did not write."""

from __future__ import annotations

from typing import TypedDict

from .common import ApiErrorDetail, JsonObject


class ResponsesContent(TypedDict, total=False):
    """A content part of an OpenAI Responses item (``input_text``, ``input_image``, ``output_text``, ``refusal``,
    a reasoning item's ``summary_text``/``reasoning_text``)."""

    type: str
    text: str
    image_url: str
    file_id: str
    detail: str
    refusal: str
    annotations: list[JsonObject]
    logprobs: list[JsonObject]


class ResponsesItem(TypedDict, total=False):
    """An OpenAI Responses input or output item (``message``, ``function_call``, ``function_call_output``,
    ``custom_tool_call``, ``reasoning``, ...)."""

    type: str
    id: str
    role: str
    status: str
    content: str | list[ResponsesContent]
    call_id: str
    name: str
    namespace: str
    arguments: str
    input: str
    output: str | list[ResponsesContent]
    summary: list[ResponsesContent]
    encrypted_content: str | None


class ResponsesOutputItem(TypedDict, total=False):
    """An OpenAI Responses output item (``message``, ``function_call``, ``reasoning``, ...), as returned (a
    call's name the caller's request left out: None)."""

    type: str
    id: str
    role: str
    status: str
    content: list[ResponsesContent]
    call_id: str
    name: str | None
    namespace: str
    arguments: str
    input: str
    summary: list[ResponsesContent]
    encrypted_content: str | None


class ResponsesTool(TypedDict, total=False):
    """An OpenAI Responses tool definition (``function`` with ``parameters``, ``custom``, ``namespace`` with
    ``tools``, a hosted tool's ``type``)."""

    type: str
    name: str
    description: str | None
    parameters: JsonObject | None
    strict: bool | None
    format: JsonObject
    tools: list[ResponsesTool]


class ResponsesToolChoice(TypedDict, total=False):
    """A named OpenAI Responses ``tool_choice`` (``{"type": "function", "name": ...}``)."""

    type: str
    name: str


class ResponsesReasoning(TypedDict, total=False):
    """An OpenAI Responses request's ``reasoning`` (``effort``, ``summary``)."""

    effort: str | None
    summary: str | None
    generate_summary: str | None


class ResponsesText(TypedDict, total=False):
    """An OpenAI Responses request's ``text`` (its ``format``: ``text``/``json_object``/``json_schema``)."""

    format: JsonObject
    verbosity: str


class ResponsesRequest(TypedDict, total=False):
    """An OpenAI Responses request body, as sent on the wire."""

    model: str
    input: str | list[ResponsesItem]
    instructions: str | None
    tools: list[ResponsesTool]
    tool_choice: str | ResponsesToolChoice
    parallel_tool_calls: bool
    stream: bool
    max_output_tokens: int
    temperature: float
    top_p: float
    reasoning: ResponsesReasoning
    text: ResponsesText
    include: list[str]
    store: bool
    previous_response_id: str
    prompt_cache_key: str
    safety_identifier: str
    user: str
    metadata: JsonObject
    service_tier: str
    truncation: str
    background: bool
    client_metadata: JsonObject


class ResponsesInputDetails(TypedDict, total=False):
    """The ``input_tokens_details`` of an OpenAI Responses usage."""

    cached_tokens: int


class ResponsesOutputDetails(TypedDict, total=False):
    """The ``output_tokens_details`` of an OpenAI Responses usage."""

    reasoning_tokens: int


class ResponsesUsage(TypedDict, total=False):
    """The ``usage`` of an OpenAI Responses reply."""

    input_tokens: int
    output_tokens: int
    total_tokens: int
    input_tokens_details: ResponsesInputDetails
    output_tokens_details: ResponsesOutputDetails


class ResponsesIncomplete(TypedDict, total=False):
    """The ``incomplete_details`` of an OpenAI Responses reply."""

    reason: str


class Response(TypedDict, total=False):
    """An OpenAI Responses reply body (``object: response``), also the ``response`` of its lifecycle events."""

    id: str
    object: str
    created_at: int
    status: str
    model: str
    output: list[ResponsesOutputItem]
    usage: ResponsesUsage | None
    incomplete_details: ResponsesIncomplete | None
    error: ApiErrorDetail | None
    instructions: str | None
    tools: list[ResponsesTool]
    tool_choice: str | ResponsesToolChoice
    parallel_tool_calls: bool
    reasoning: ResponsesReasoning
    text: ResponsesText
    temperature: float | None
    top_p: float | None
    max_output_tokens: int | None
    previous_response_id: str | None
    store: bool
    metadata: JsonObject
    user: str | None
    truncation: str
    service_tier: str | None


class ResponsesEvent(TypedDict, total=False):
    """An OpenAI Responses SSE event's data (``response.created``, ``response.output_item.added``,
    ``response.output_text.delta``, ..., ``error``)."""

    type: str
    sequence_number: int
    response: Response
    item: ResponsesOutputItem
    output_index: int
    item_id: str
    content_index: int
    summary_index: int
    part: ResponsesContent
    delta: str
    text: str
    arguments: str
    input: str
    logprobs: list[JsonObject]
    message: str
    code: str | None
    param: str | None
