"""A Gemini API request (``generateContent``; the model and ``stream`` come from the URL) read into an OpenAI Chat
request, what every Gemini translation starts from.

- ``systemInstruction`` -> a system message; ``contents``: ``user`` (and the older ``function``) text and images
  (``inlineData`` image -> a ``data:`` URL, ``fileData`` image -> its URL) -> user messages; ``model`` text ->
  assistant ``content``, ``functionCall`` -> ``tool_calls`` (its ``id``, else one made up, kept for its answer);
  ``functionResponse`` -> a ``tool`` message answering the call of that id (else the first open call of that name),
  ``response.output`` as its text (any other response as JSON); thought parts and ``thoughtSignature`` of earlier
  turns are left out (a chat endpoint takes no thinking back);
- ``tools[].functionDeclarations`` -> function tools (``parametersJsonSchema`` as given; ``parameters``, Gemini's
  OpenAPI schema, with its upper-case types in lower case); Google's hosted tools (``googleSearch``,
  ``googleSearchRetrieval``, ``codeExecution``, ``urlContext``, ``googleMaps``, ``fileSearch``, ``computerUse``)
  are dropped with a warning; ``toolConfig.functionCallingConfig.mode`` ``AUTO`` / ``ANY`` / ``NONE`` -> ``auto`` /
  ``required`` / ``none`` (``ANY`` with one ``allowedFunctionNames`` -> that function);
- ``generationConfig``: ``temperature``, ``topP``, ``topK``, ``maxOutputTokens`` -> ``max_tokens``,
  ``stopSequences`` -> ``stop``, ``seed``, ``presencePenalty``, ``frequencyPenalty``, ``candidateCount`` (1 only),
  ``responseMimeType: application/json`` with ``responseJsonSchema`` / ``responseSchema`` -> ``response_format``,
  ``thinkingConfig.thinkingLevel`` -> ``reasoning_effort`` (lower case), else ``thinkingBudget`` (<= 2048 low,
  <= 8192 medium, more high; -1 the endpoint's default; 0 left out with a warning), ``includeThoughts`` (the
  endpoint's reasoning comes back as thought parts only then);
- ``safetySettings`` and ``labels`` are left out with a warning (Google's own filters and billing labels); any
  other field, part or tool is refused.
"""

from __future__ import annotations

from typing import Any

from agentcompass.models.wire import (
    ChatContentPart,
    ChatFunctionDefinition,
    ChatMessage,
    ChatTool,
    ChatToolCall,
    GeminiContent,
    GeminiFunctionCall,
    GeminiFunctionResponse,
    GeminiGenerationConfig,
    GeminiPart,
    GeminiRequest,
    GeminiThinkingConfig,
)
from agentcompass.models.wire import gemini as _gemini_wire

from . import _common
from ._common import Refuser

AGENT = "google-genai"
KNOWN = frozenset(
    {"model", "stream", "contents", "systemInstruction", "tools", "toolConfig", "generationConfig"}
    | {"safetySettings", "labels"}
)
GENERATION = {
    "temperature": "temperature",
    "topP": "top_p",
    "topK": "top_k",
    "maxOutputTokens": "max_tokens",
    "seed": "seed",
    "presencePenalty": "presence_penalty",
    "frequencyPenalty": "frequency_penalty",
}
GENERATION_KNOWN = frozenset(GENERATION) | {
    "stopSequences",
    "candidateCount",
    "responseMimeType",
    "responseJsonSchema",
    "responseSchema",
    "thinkingConfig",
    "responseModalities",
}
HOSTED: tuple[str, ...] = ("googleSearch", "googleSearchRetrieval", "codeExecution", "urlContext", "googleMaps")
HOSTED += ("fileSearch", "computerUse", "enterpriseWebSearch")
PART_KEYS = frozenset({"text", "thought", "thoughtSignature", "inlineData", "fileData", "functionCall"})
PART_KEYS |= {"functionResponse"}


def lower_schema(schema: Any) -> Any:
    """Gemini's OpenAPI schema as JSON schema: ``type`` in lower case, ``nullable`` / ``propertyOrdering`` left out."""
    if isinstance(schema, list):
        return [lower_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("nullable", "propertyOrdering"):
            continue
        if key == "type" and isinstance(value, str):
            out[key] = value.lower()
        elif key == "properties" and isinstance(value, dict):
            out[key] = {k: lower_schema(v) for k, v in value.items()}
        else:
            out[key] = lower_schema(value)
    return out


def _image(part: GeminiPart, refuse: Refuser, what: str) -> ChatContentPart:
    inline, file = part.get("inlineData"), part.get("fileData")
    mime = str((inline or file or {}).get("mimeType") or "")
    if inline is not None and mime.startswith("image/"):
        return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{inline.get('data') or ''}"}}
    if file is not None and (mime.startswith("image/") or not mime):
        return {"type": "image_url", "image_url": {"url": str(file.get("fileUri") or "")}}
    raise refuse(f"{what}: {'inlineData' if inline is not None else 'fileData'} of type {mime!r} (images only)")


def _output(response: Any) -> str:
    if isinstance(response, dict) and set(response) == {"output"} and isinstance(response["output"], str):
        return response["output"]
    return _common.dumps(response)


class _Reader:
    def __init__(self, refuse: Refuser) -> None:
        self.refuse = refuse
        self.messages: list[ChatMessage] = []
        self.open: list[tuple[str, str]] = []  # (id, name) of calls not answered yet
        self.n = 0

    def _call_id(self, call: GeminiFunctionCall) -> str:
        self.n += 1
        return str(call.get("id") or f"call_{call.get('name')}_{self.n}")

    def _answer_id(self, resp: GeminiFunctionResponse) -> str:
        ids = [i for i, _ in self.open]
        if resp.get("id") in ids:
            pick = ids.index(resp["id"])
        else:
            pick = next((k for k, (_, n) in enumerate(self.open) if n == resp.get("name")), -1)
        if pick < 0:
            return str(resp.get("id") or f"call_{resp.get('name')}_{self.n}")
        return self.open.pop(pick)[0]

    def content(self, i: int, content: GeminiContent) -> None:
        role, what = content.get("role") or "user", f"contents[{i}]"
        if role not in ("user", "model", "function"):
            raise self.refuse(f"{what}.role {role!r}")
        parts: list[ChatContentPart] = []
        calls: list[ChatToolCall] = []
        for part in content.get("parts") or []:
            self.refuse.unknown_keys(part, PART_KEYS, f"{what}.parts[].")
            if part.get("thought"):
                continue
            if isinstance(part.get("text"), str):
                parts.append({"type": "text", "text": part["text"]})
            elif "inlineData" in part or "fileData" in part:
                parts.append(_image(part, self.refuse, what))
            elif isinstance(part.get("functionCall"), dict) and role == "model":
                fc = part["functionCall"]
                call_id = self._call_id(fc)
                self.open.append((call_id, str(fc.get("name") or "")))
                args = _common.dumps(fc.get("args") or {})
                calls.append(
                    {"id": call_id, "type": "function", "function": {"name": fc.get("name"), "arguments": args}}
                )
            elif isinstance(part.get("functionResponse"), dict) and role != "model":
                resp = part["functionResponse"]
                self.messages.append(
                    {"role": "tool", "tool_call_id": self._answer_id(resp), "content": _output(resp.get("response"))}
                )
            elif "thoughtSignature" not in part:
                raise self.refuse(f"{what}: a part of role {role!r} with {sorted(part)}")
        if role == "model":
            if parts or calls:
                texts = "".join(p["text"] for p in parts if p["type"] == "text")
                message: ChatMessage = {"role": "assistant", "content": texts or (None if calls else "")}
                if calls:
                    message["tool_calls"] = calls
                self.messages.append(message)
        elif parts:
            flat = all(p["type"] == "text" for p in parts)
            self.messages.append({"role": "user", "content": "".join(p["text"] for p in parts) if flat else parts})


def _tools(agent: GeminiRequest, refuse: Refuser, warnings: list[str]) -> list[ChatTool]:
    out: list[ChatTool] = []
    for tool in agent.get("tools") or []:
        for key in tool:
            if key in HOSTED:
                warnings.append(f"hosted tool {key!r} dropped: the endpoint cannot run it (gateway translation)")
            elif key != "functionDeclarations":
                raise refuse(f"tool {key!r}")
        for decl in tool.get("functionDeclarations") or []:
            refuse.unknown_keys(decl, {"name", "description", "parameters", "parametersJsonSchema", "behavior"})
            schema = decl.get("parametersJsonSchema") or lower_schema(decl.get("parameters"))
            fn: ChatFunctionDefinition = {
                "name": decl.get("name"),
                "parameters": schema or {"type": "object", "properties": {}},
            }
            if decl.get("description"):
                fn["description"] = decl["description"]
            out.append({"type": "function", "function": fn})
    return out


def _tool_choice(agent: GeminiRequest, refuse: Refuser) -> Any:
    config = (agent.get("toolConfig") or {}).get("functionCallingConfig") or {}
    mode = str(config.get("mode") or "AUTO").upper()
    names = config.get("allowedFunctionNames") or []
    if mode == "ANY" and len(names) == 1:
        return {"type": "function", "function": {"name": names[0]}}
    if mode == "ANY" and names:
        raise refuse("toolConfig.functionCallingConfig.allowedFunctionNames with more than one name")
    if mode not in ("AUTO", "ANY", "NONE", "MODE_UNSPECIFIED"):
        raise refuse(f"toolConfig.functionCallingConfig.mode {mode!r}")
    return {"ANY": "required", "NONE": "none"}.get(mode, "auto")


def _effort(thinking: GeminiThinkingConfig, refuse: Refuser, warnings: list[str]) -> str | None:
    refuse.unknown_keys(thinking, {"thinkingLevel", "thinkingBudget", "includeThoughts"}, "thinkingConfig.")
    if thinking.get("thinkingLevel"):
        return str(thinking["thinkingLevel"]).lower()
    budget = thinking.get("thinkingBudget")
    if budget is None or budget == -1:
        return None
    if budget == 0:
        warnings.append("thinkingConfig.thinkingBudget=0 left out: the endpoint's API has no switch to turn it off")
        return None
    return "low" if budget <= 2048 else "medium" if budget <= 8192 else "high"


def _generation(config: GeminiGenerationConfig, out: dict[str, Any], refuse: Refuser, warnings: list[str]) -> None:
    refuse.unknown_keys(config, GENERATION_KNOWN, "generationConfig.")
    for key, name in GENERATION.items():
        value = config.get(key)
        if value is not None:
            out[name] = value
    if config.get("stopSequences"):
        out["stop"] = list(config["stopSequences"])
    if (config.get("candidateCount") or 1) != 1:
        raise refuse(f"generationConfig.candidateCount={config['candidateCount']} (one candidate only)")
    if any(m != "TEXT" for m in config.get("responseModalities") or []):
        raise refuse(f"generationConfig.responseModalities {config['responseModalities']!r} (TEXT only)")
    mime = config.get("responseMimeType") or "text/plain"
    schema = config.get("responseJsonSchema") or lower_schema(config.get("responseSchema"))
    if mime == "application/json":
        fmt = {"name": "response", "schema": schema, "strict": True} if schema else None
        out["response_format"] = {"type": "json_schema", "json_schema": fmt} if fmt else {"type": "json_object"}
    elif mime != "text/plain":
        raise refuse(f"generationConfig.responseMimeType {mime!r}")
    thinking: GeminiThinkingConfig = config.get("thinkingConfig") or {}
    effort = _effort(thinking, refuse, warnings)
    if effort:
        out["reasoning_effort"] = effort


def chat(agent: GeminiRequest, warnings: list[str], refuse: Refuser) -> dict[str, Any]:
    """The chat request for a Gemini request (see the module doc; fields under their proto names are read as
    under their JSON names, as the API does)."""
    agent = _gemini_wire.camel_keys(agent)
    refuse.unknown_keys(agent, KNOWN)
    reader = _Reader(refuse)
    system = agent.get("systemInstruction")
    if isinstance(system, str):
        system = {"parts": [{"text": system}]}
    if system:
        texts = [p.get("text") or "" for p in system.get("parts") or []]
        reader.messages.append({"role": "system", "content": "\n".join(texts)})
    for i, content in enumerate(agent.get("contents") or []):
        reader.content(i, content)
    for key in ("safetySettings", "labels"):
        if agent.get(key):
            warnings.append(f"{key} left out: no counterpart on the endpoint's API (gateway translation)")
    out: dict[str, Any] = {"model": agent.get("model"), "messages": reader.messages}
    if agent.get("stream"):
        out["stream"] = True
    tools = _tools(agent, refuse, warnings)
    if tools:
        out["tools"] = tools
        if agent.get("toolConfig"):
            out["tool_choice"] = _tool_choice(agent, refuse)
    _generation(agent.get("generationConfig") or {}, out, refuse, warnings)
    return out


def include_thoughts(agent: GeminiRequest) -> bool:
    agent = _gemini_wire.camel_keys({k: v for k, v in agent.items() if k in ("generationConfig", "generation_config")})
    return bool(((agent.get("generationConfig") or {}).get("thinkingConfig") or {}).get("includeThoughts"))


def loads(text: str) -> dict[str, object]:
    """A tool call's JSON arguments as Gemini ``args`` (an object; other JSON kept under ``_raw``)."""
    return _common.arguments(text) if text else {}
