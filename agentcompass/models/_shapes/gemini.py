"""Gemini ``generateContent`` on the wire (REST, camelCase): the request, its contents, parts and function
declarations, the reply's candidates and ``usageMetadata`` (field names as in ``google.genai.types``, which
spells them in snake case); every field is optional, as the code reads bodies it did not write."""

from __future__ import annotations

from typing import TypedDict

from .common import JsonObject


class GeminiBlob(TypedDict, total=False):
    """A Gemini part's ``inlineData``: base64 bytes and their MIME type."""

    mimeType: str
    data: str


class GeminiFileData(TypedDict, total=False):
    """A Gemini part's ``fileData``: a file by URI."""

    mimeType: str
    fileUri: str


class GeminiFunctionCall(TypedDict, total=False):
    """A Gemini part's ``functionCall`` (``args``: the arguments as an object; ``name`` optional, as in the SDK)."""

    id: str
    name: str | None
    args: JsonObject


class GeminiFunctionResponse(TypedDict, total=False):
    """A Gemini part's ``functionResponse``: a tool's result for a ``functionCall``."""

    id: str
    name: str
    response: JsonObject


class GeminiPart(TypedDict, total=False):
    """A Gemini ``Part``: text (``thought`` when a thought summary), inline or file data, a function call or
    response; ``thoughtSignature`` carries the model's opaque reasoning state."""

    text: str
    thought: bool
    thoughtSignature: str
    inlineData: GeminiBlob
    fileData: GeminiFileData
    functionCall: GeminiFunctionCall
    functionResponse: GeminiFunctionResponse


class GeminiContent(TypedDict, total=False):
    """A Gemini ``Content``: one turn's role (``user``/``model``) and parts (also ``systemInstruction``)."""

    role: str
    parts: list[GeminiPart]


class GeminiFunctionDeclaration(TypedDict, total=False):
    """A Gemini ``FunctionDeclaration`` (``parameters``: OpenAPI subset; ``parametersJsonSchema``: JSON Schema;
    ``name`` optional, as in the SDK)."""

    name: str | None
    description: str
    parameters: JsonObject
    parametersJsonSchema: JsonObject
    behavior: str


class GeminiTool(TypedDict, total=False):
    """A Gemini ``Tool``: function declarations, or a built-in tool (``googleSearch``, ``codeExecution``, ...)."""

    functionDeclarations: list[GeminiFunctionDeclaration]
    googleSearch: JsonObject
    googleSearchRetrieval: JsonObject
    codeExecution: JsonObject
    urlContext: JsonObject
    fileSearch: JsonObject
    googleMaps: JsonObject
    computerUse: JsonObject
    enterpriseWebSearch: JsonObject


class GeminiFunctionCallingConfig(TypedDict, total=False):
    """A Gemini ``FunctionCallingConfig`` (``mode`` AUTO/ANY/NONE, ``allowedFunctionNames``)."""

    mode: str
    allowedFunctionNames: list[str]


class GeminiToolConfig(TypedDict, total=False):
    """A Gemini request's ``toolConfig``."""

    functionCallingConfig: GeminiFunctionCallingConfig


class GeminiThinkingConfig(TypedDict, total=False):
    """A Gemini ``ThinkingConfig`` (``thinkingBudget`` or ``thinkingLevel``, ``includeThoughts``)."""

    includeThoughts: bool
    thinkingBudget: int
    thinkingLevel: str


class GeminiGenerationConfig(TypedDict, total=False):
    """A Gemini request's ``generationConfig``."""

    temperature: float
    topP: float
    topK: int
    maxOutputTokens: int
    stopSequences: list[str]
    candidateCount: int
    seed: int
    presencePenalty: float
    frequencyPenalty: float
    responseMimeType: str
    responseSchema: JsonObject
    responseJsonSchema: JsonObject
    responseModalities: list[str]
    thinkingConfig: GeminiThinkingConfig


class GeminiRequest(TypedDict, total=False):
    """A Gemini ``generateContent`` request body, as sent on the wire."""

    contents: list[GeminiContent]
    systemInstruction: GeminiContent
    tools: list[GeminiTool]
    toolConfig: GeminiToolConfig
    generationConfig: GeminiGenerationConfig
    safetySettings: list[JsonObject]
    cachedContent: str
    labels: dict[str, str]
    model: str


class GeminiUsage(TypedDict, total=False):
    """A Gemini reply's ``usageMetadata``."""

    promptTokenCount: int
    candidatesTokenCount: int
    totalTokenCount: int
    cachedContentTokenCount: int
    thoughtsTokenCount: int
    toolUsePromptTokenCount: int


class GeminiCandidate(TypedDict, total=False):
    """A candidate of a Gemini reply (a stream chunk's carries the parts of that chunk)."""

    content: GeminiContent
    finishReason: str
    index: int
    safetyRatings: list[JsonObject]
    finishMessage: str


class GeminiResponse(TypedDict, total=False):
    """A Gemini ``GenerateContentResponse`` body (also each chunk of ``streamGenerateContent``)."""

    candidates: list[GeminiCandidate]
    usageMetadata: GeminiUsage
    modelVersion: str
    responseId: str
    createTime: str
    promptFeedback: JsonObject
