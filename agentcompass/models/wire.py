"""The wire formats of the bundled model protocols, for the packages that speak them (the gateway, the scripted
model server): the model layer's front door to them, whose own modules (``_streams``, ``_forward``) stay private.

- the stream module of each bundled wire format, by its name (``chat``, ``messages``, ``responses``, ``gemini``; a
  module added to ``_streams`` is reachable here by its name too): its events both ways (``synthesize``, ``Assembler``,
  ``error_event``) and the shapes of its bodies;
- ``sse``: the SSE form (``encode``, ``SSEParser``); ``synthesize`` / ``assembler`` / ``error_event``: the
  stream of a protocol by the protocol's name;
- ``ForwardRequest`` / ``FORWARDED_HEADERS``: a request in an API's wire form, forwarded through a model client
  (imported on first use);
- ``gemini_request``: chat-form messages, tools and parameters as a Gemini API request (and its stream writer);
  ``tool_shapes``: chat-form tools and messages in the Responses and Anthropic shapes (imported on first use);
- the shapes of each API's JSON bodies (TypedDicts): ``Chat*`` (OpenAI Chat Completions), ``Anthropic*``
  (Anthropic Messages), ``Responses*``/``Response`` (OpenAI Responses), ``Gemini*`` (Gemini generateContent),
  ``ApiError*`` (error bodies), ``JsonObject`` (an object carried whole).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._shapes.chat import (
    ChatChoice,
    ChatChunk,
    ChatChunkChoice,
    ChatCompletion,
    ChatCompletionTokensDetails,
    ChatContentPart,
    ChatFunctionCall,
    ChatFunctionDefinition,
    ChatImageURL,
    ChatMessage,
    ChatNamedFunction,
    ChatPromptTokensDetails,
    ChatReplyMessage,
    ChatRequest,
    ChatResponseFormat,
    ChatStreamOptions,
    ChatTool,
    ChatToolCall,
    ChatToolChoice,
    ChatUsage,
)
from ._shapes.common import ApiErrorBody, ApiErrorDetail, JsonObject
from ._shapes.gemini import (
    GeminiBlob,
    GeminiCandidate,
    GeminiContent,
    GeminiFileData,
    GeminiFunctionCall,
    GeminiFunctionCallingConfig,
    GeminiFunctionDeclaration,
    GeminiFunctionResponse,
    GeminiGenerationConfig,
    GeminiPart,
    GeminiRequest,
    GeminiResponse,
    GeminiThinkingConfig,
    GeminiTool,
    GeminiToolConfig,
    GeminiUsage,
)
from ._shapes.messages import (
    AnthropicBlock,
    AnthropicContextEdit,
    AnthropicContextManagement,
    AnthropicDelta,
    AnthropicEvent,
    AnthropicMessage,
    AnthropicMetadata,
    AnthropicOutputConfig,
    AnthropicRequest,
    AnthropicResponse,
    AnthropicSource,
    AnthropicThinking,
    AnthropicTool,
    AnthropicToolChoice,
    AnthropicUsage,
)
from ._shapes.responses import (
    Response,
    ResponsesContent,
    ResponsesEvent,
    ResponsesIncomplete,
    ResponsesInputDetails,
    ResponsesItem,
    ResponsesOutputDetails,
    ResponsesOutputItem,
    ResponsesReasoning,
    ResponsesRequest,
    ResponsesText,
    ResponsesTool,
    ResponsesToolChoice,
    ResponsesUsage,
)
from ._streams import SSEParser, assembler, chat, encode, error_event, gemini, messages, responses, sse, synthesize

if TYPE_CHECKING:
    from ._forward import FORWARDED_HEADERS as FORWARDED_HEADERS
    from ._forward import ForwardRequest as ForwardRequest

_FORWARDING = ("FORWARDED_HEADERS", "ForwardRequest")
_MODULES = {"gemini_request": "_gemini", "tool_shapes": "_tools"}  # the model layer's own, by a public name

__all__ = [
    "AnthropicBlock",
    "AnthropicDelta",
    "AnthropicOutputConfig",
    "AnthropicContextManagement",
    "AnthropicContextEdit",
    "AnthropicEvent",
    "AnthropicMessage",
    "AnthropicMetadata",
    "AnthropicRequest",
    "AnthropicResponse",
    "AnthropicSource",
    "AnthropicThinking",
    "AnthropicTool",
    "AnthropicToolChoice",
    "AnthropicUsage",
    "ApiErrorBody",
    "ApiErrorDetail",
    "ChatChoice",
    "ChatChunk",
    "ChatChunkChoice",
    "ChatCompletion",
    "ChatCompletionTokensDetails",
    "ChatContentPart",
    "ChatReplyMessage",
    "ChatFunctionCall",
    "ChatFunctionDefinition",
    "ChatImageURL",
    "ChatMessage",
    "ChatNamedFunction",
    "ChatPromptTokensDetails",
    "ChatRequest",
    "ChatResponseFormat",
    "ChatStreamOptions",
    "ChatTool",
    "ChatToolCall",
    "ChatToolChoice",
    "ChatUsage",
    "GeminiBlob",
    "GeminiCandidate",
    "GeminiContent",
    "GeminiFileData",
    "GeminiFunctionCall",
    "GeminiFunctionCallingConfig",
    "GeminiFunctionDeclaration",
    "GeminiFunctionResponse",
    "GeminiGenerationConfig",
    "GeminiPart",
    "GeminiRequest",
    "GeminiResponse",
    "GeminiThinkingConfig",
    "GeminiTool",
    "GeminiToolConfig",
    "GeminiUsage",
    "JsonObject",
    "Response",
    "ResponsesContent",
    "ResponsesEvent",
    "ResponsesIncomplete",
    "ResponsesInputDetails",
    "ResponsesItem",
    "ResponsesOutputItem",
    "ResponsesOutputDetails",
    "ResponsesReasoning",
    "ResponsesRequest",
    "ResponsesText",
    "ResponsesTool",
    "ResponsesToolChoice",
    "ResponsesUsage",
    "FORWARDED_HEADERS",
    "ForwardRequest",
    "SSEParser",
    "assembler",
    "chat",
    "encode",
    "error_event",
    "gemini",
    "messages",
    "responses",
    "sse",
    "synthesize",
]


def __getattr__(name: str) -> Any:
    """Forwarding (imported on first use), or another stream module of ``_streams`` by its name."""
    if name in _FORWARDING:
        return getattr(importlib.import_module(f"{__package__}._forward"), name)
    if name in _MODULES:
        return importlib.import_module(f"{__package__}.{_MODULES[name]}")
    if not name.startswith("_"):
        try:
            return importlib.import_module(f"{__package__}._streams.{name}")
        except ModuleNotFoundError:
            pass
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
