"""OpenAI Chat Completions on the wire (``POST /v1/chat/completions``): the request, its messages and tools, the
``chat.completion`` reply and its ``chat.completion.chunk`` stream (field names as in
``openai.types.chat``); every field is optional, as the code reads bodies it did not write."""

from __future__ import annotations

from typing import TypedDict

from .common import JsonObject


class ChatFunctionCall(TypedDict, total=False):
    """The ``function`` of an OpenAI Chat Completions tool call: its name and JSON-encoded arguments (a name
    the caller's request left out: None)."""

    name: str | None
    arguments: str


class ChatToolCall(TypedDict, total=False):
    """An OpenAI Chat Completions tool call of an assistant message (in a stream delta: with its ``index``)."""

    index: int
    id: str | None
    type: str
    function: ChatFunctionCall


class ChatImageURL(TypedDict, total=False):
    """The ``image_url`` of an OpenAI Chat Completions image part (a URL or a ``data:`` URL)."""

    url: str
    detail: str


class ChatContentPart(TypedDict, total=False):
    """A part of an OpenAI Chat Completions message's content (``text``, ``image_url``, ``refusal``, ...)."""

    type: str
    text: str
    image_url: ChatImageURL
    refusal: str
    cache_control: JsonObject


class ChatMessage(TypedDict, total=False):
    """An OpenAI Chat Completions message, as sent on the wire (a request's) or returned (a choice's, a delta)."""

    role: str
    content: str | list[ChatContentPart] | None
    name: str
    tool_calls: list[ChatToolCall]
    tool_call_id: str | None
    refusal: str | None
    reasoning_content: str
    reasoning: str
    cache_control: JsonObject


class ChatReplyMessage(TypedDict, total=False):
    """An assistant message as an OpenAI Chat Completions reply returns it (a choice's ``message``; a chunk's
    ``delta`` carries a piece of one)."""

    role: str
    content: str | None
    tool_calls: list[ChatToolCall]
    refusal: str | None
    reasoning_content: str
    reasoning: str


class ChatFunctionDefinition(TypedDict, total=False):
    """The ``function`` of an OpenAI Chat Completions tool definition (``parameters``: a JSON Schema; a name
    the caller's request left out: None)."""

    name: str | None
    description: str
    parameters: JsonObject
    strict: bool


class ChatTool(TypedDict, total=False):
    """An OpenAI Chat Completions tool definition (``type: function``)."""

    type: str
    function: ChatFunctionDefinition


class ChatNamedFunction(TypedDict, total=False):
    """The function a named OpenAI Chat Completions ``tool_choice`` forces."""

    name: str


class ChatToolChoice(TypedDict, total=False):
    """A named OpenAI Chat Completions ``tool_choice`` (``{"type": "function", "function": {"name": ...}}``)."""

    type: str
    function: ChatNamedFunction


class ChatStreamOptions(TypedDict, total=False):
    """An OpenAI Chat Completions request's ``stream_options``."""

    include_usage: bool


class ChatResponseFormat(TypedDict, total=False):
    """An OpenAI Chat Completions ``response_format`` (``text``, ``json_object``, ``json_schema``)."""

    type: str
    json_schema: JsonObject


class ChatRequest(TypedDict, total=False):
    """An OpenAI Chat Completions request body, as sent on the wire."""

    model: str
    messages: list[ChatMessage]
    tools: list[ChatTool]
    tool_choice: str | ChatToolChoice
    parallel_tool_calls: bool
    stream: bool
    stream_options: ChatStreamOptions
    max_tokens: int
    max_completion_tokens: int
    temperature: float
    top_p: float
    stop: str | list[str]
    top_k: int
    seed: int
    n: int
    reasoning_effort: str
    response_format: ChatResponseFormat
    frequency_penalty: float
    presence_penalty: float
    user: str
    metadata: JsonObject
    store: bool
    service_tier: str


class ChatPromptTokensDetails(TypedDict, total=False):
    """The ``prompt_tokens_details`` of an OpenAI Chat Completions usage."""

    cached_tokens: int


class ChatCompletionTokensDetails(TypedDict, total=False):
    """The ``completion_tokens_details`` of an OpenAI Chat Completions usage."""

    reasoning_tokens: int


class ChatUsage(TypedDict, total=False):
    """The ``usage`` of an OpenAI Chat Completions reply (or of its stream's last chunk)."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    prompt_tokens_details: ChatPromptTokensDetails
    completion_tokens_details: ChatCompletionTokensDetails


class ChatChoice(TypedDict, total=False):
    """A choice of a ``chat.completion`` reply."""

    index: int
    message: ChatReplyMessage
    finish_reason: str | None
    logprobs: object


class ChatCompletion(TypedDict, total=False):
    """An OpenAI Chat Completions reply body (``object: chat.completion``)."""

    id: str
    object: str
    created: int
    model: str
    choices: list[ChatChoice]
    usage: ChatUsage | None
    system_fingerprint: str | None
    service_tier: str | None


class ChatChunkChoice(TypedDict, total=False):
    """A choice of a ``chat.completion.chunk``: its ``delta`` (a partial message)."""

    index: int
    delta: ChatReplyMessage
    finish_reason: str | None
    logprobs: object


class ChatChunk(TypedDict, total=False):
    """An OpenAI Chat Completions stream event's data (``object: chat.completion.chunk``)."""

    id: str
    object: str
    created: int
    model: str
    choices: list[ChatChunkChoice]
    usage: ChatUsage | None
    system_fingerprint: str | None
    service_tier: str | None
