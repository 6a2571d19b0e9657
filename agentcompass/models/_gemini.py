"""Chat-form messages, tools and parameters as a Gemini API ``generateContent`` request (the wire form, camelCase).

- ``system`` / ``developer`` messages -> ``systemInstruction`` (one text part each);
- ``user`` text and images (a ``data:`` URL -> ``inlineData``, another URL -> ``fileData``) -> ``user`` contents;
- ``assistant`` content and ``tool_calls`` -> ``model`` contents with ``text`` and ``functionCall`` parts (the
  call's id kept as ``functionCall.id``, its JSON arguments as ``args``, its thought signature as read from the reply
  that made it, see ``remember``); ``reasoning_content`` is not sent back;
- ``tool`` messages -> ``functionResponse`` parts of a ``user`` content (``{"output": <text>}``, the function's
  name found from the call it answers); consecutive contents of one role are merged, as Gemini needs them
  alternating;
- function tools -> one ``functionDeclarations`` tool (``parametersJsonSchema``: the JSON schema as given);
  ``tool_choice`` auto / required / none / a named function -> ``toolConfig.functionCallingConfig`` ``AUTO`` /
  ``ANY`` / ``NONE`` / ``ANY`` with ``allowedFunctionNames``;
- parameters -> ``generationConfig``: ``temperature``, ``top_p`` -> ``topP``, ``top_k`` -> ``topK``,
  ``max_tokens`` / ``max_completion_tokens`` / ``max_output_tokens`` -> ``maxOutputTokens``, ``stop`` /
  ``stop_sequences`` -> ``stopSequences``, ``seed``, ``presence_penalty``, ``frequency_penalty``, ``n`` ->
  ``candidateCount``, ``reasoning_effort`` -> ``thinkingConfig.thinkingLevel`` (upper case; ``none`` ->
  ``thinkingBudget: 0``), ``thinking_config`` / ``thinkingConfig`` as given, ``response_format`` JSON schema ->
  ``responseMimeType: application/json`` + ``responseJsonSchema``. Any other key is returned apart (``extra``),
  for the request body as given.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from ._shapes.chat import ChatContentPart, ChatMessage
from ._shapes.common import JsonObject
from ._shapes.gemini import (
    GeminiContent,
    GeminiFunctionCall,
    GeminiFunctionDeclaration,
    GeminiFunctionResponse,
    GeminiPart,
    GeminiTool,
)

GENERATION = {
    "temperature": "temperature",
    "top_p": "topP",
    "top_k": "topK",
    "max_tokens": "maxOutputTokens",
    "max_completion_tokens": "maxOutputTokens",
    "max_output_tokens": "maxOutputTokens",
    "seed": "seed",
    "presence_penalty": "presencePenalty",
    "frequency_penalty": "frequencyPenalty",
    "n": "candidateCount",
}
# Gemini 3 needs the thought signature of a function call sent back with it; the chat form has no place for one, so
# the signatures of the calls read from replies are remembered here by call id (the most recent ones, in memory), and
# a call whose signature is unknown (made by another model, or forgotten) carries the value the API documents for
# calls it did not make itself, which skips the check.
UNKNOWN_SIGNATURE = "skip_thought_signature_validator"
_SIGNATURES: OrderedDict[str, str] = OrderedDict()
_LOCK = threading.Lock()
_KEEP = 20000


def remember(call_id: str, signature: str) -> None:
    """Keep ``signature`` for the function call ``call_id`` (sent back with it in later requests)."""
    with _LOCK:
        _SIGNATURES[call_id] = signature
        _SIGNATURES.move_to_end(call_id)
        while len(_SIGNATURES) > _KEEP:
            _SIGNATURES.popitem(last=False)


def signature_of(call_id: str) -> str | None:
    with _LOCK:
        return _SIGNATURES.get(call_id)


SKIPPED = frozenset({"parallel_tool_calls", "extra_headers", "extra_query", "stream", "stream_options"})


def _image(part: ChatContentPart) -> GeminiPart:
    url = str((part.get("image_url") or {}).get("url") or "")
    if url.startswith("data:") and ";base64," in url:
        media, data = url[5:].split(";base64,", 1)
        return {"inlineData": {"mimeType": media, "data": data}}
    return {"fileData": {"fileUri": url}}


def parts_of(content: Any) -> list[GeminiPart]:
    """A chat message content as Gemini parts (text and images)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"text": content}] if content else []
    out: list[GeminiPart] = []
    for part in content:
        if isinstance(part, str):
            out.append({"text": part})
        elif part.get("type") in ("text", "input_text", "output_text"):
            out.append({"text": part.get("text") or ""})
        elif part.get("type") == "image_url":
            out.append(_image(part))
    return out


def _text(content: Any) -> str:
    return "".join(p.get("text", "") for p in parts_of(content))


def _args(text: Any) -> JsonObject:
    if isinstance(text, dict):
        return text
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {"_raw": text}
    return value if isinstance(value, dict) else {"_raw": text}


def _model_parts(message: ChatMessage, names: dict[str, str]) -> list[GeminiPart]:
    """An assistant message's text and function calls (each call's name noted by id in ``names``)."""
    parts = parts_of(message.get("content"))
    for i, call in enumerate(message.get("tool_calls") or []):
        fn = call.get("function") or {}
        names[str(call.get("id"))] = str(fn.get("name") or "")
        fc: GeminiFunctionCall = {"name": fn.get("name"), "args": _args(fn.get("arguments"))}
        call_id = call.get("id")
        if call_id:
            fc["id"] = call_id
        signature = signature_of(str(call.get("id"))) or (UNKNOWN_SIGNATURE if i == 0 else None)
        part: GeminiPart = {"functionCall": fc}
        if signature:
            part["thoughtSignature"] = signature
        parts.append(part)
    return parts


def contents(messages: list[ChatMessage]) -> tuple[GeminiContent | None, list[GeminiContent]]:
    """``(systemInstruction or None, contents)`` of chat-form ``messages``."""
    system: list[GeminiPart] = []
    out: list[GeminiContent] = []
    names: dict[str, str] = {}

    def add(role: str, parts: list[GeminiPart]) -> None:
        if not parts:
            return
        if out and out[-1]["role"] == role:
            out[-1]["parts"].extend(parts)
        else:
            out.append({"role": role, "parts": list(parts)})

    for message in messages:
        role = message.get("role")
        if role in ("system", "developer"):
            system.append({"text": _text(message.get("content"))})
        elif role == "assistant":
            add("model", _model_parts(message, names))
        elif role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            name = names.get(call_id) or message.get("name") or ""
            response: GeminiFunctionResponse = {"name": name, "response": {"output": _text(message.get("content"))}}
            if call_id:
                response["id"] = call_id
            add("user", [{"functionResponse": response}])
        else:
            add("user", parts_of(message.get("content")))
    return ({"parts": system} if system else None), out


def tools_of(tools: list[dict[str, Any]] | None) -> list[GeminiTool]:
    decls: list[GeminiFunctionDeclaration] = []
    for tool in tools or []:
        fn = tool.get("function") or tool  # a chat tool, or its function given flat
        decl: GeminiFunctionDeclaration = {"name": fn.get("name")}
        if fn.get("description"):
            decl["description"] = fn["description"]
        decl["parametersJsonSchema"] = fn.get("parameters") or {"type": "object", "properties": {}}
        decls.append(decl)
    return [{"functionDeclarations": decls}] if decls else []


def tool_config(choice: Any) -> dict[str, Any] | None:
    if choice is None:
        return None
    if isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name") or choice.get("name")
        return {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [name]}}
    mode = {"auto": "AUTO", "required": "ANY", "any": "ANY", "none": "NONE"}.get(str(choice), str(choice).upper())
    return {"functionCallingConfig": {"mode": mode}}


def generation(params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """``(generationConfig, extra body keys, tool_choice)`` of chat-form ``params``."""
    config: dict[str, Any] = {}
    extra: dict[str, Any] = dict(params.get("extra_body") or {})
    choice = None
    for key, value in params.items():
        if value is None or key in SKIPPED or key == "extra_body":
            continue
        if key in GENERATION:
            config[GENERATION[key]] = value
        elif key in ("stop", "stop_sequences"):
            config["stopSequences"] = [value] if isinstance(value, str) else list(value)
        elif key == "reasoning_effort":
            level = str(value).lower()
            config["thinkingConfig"] = {"thinkingBudget": 0} if level == "none" else {"thinkingLevel": level.upper()}
        elif key in ("thinking_config", "thinkingConfig"):
            config["thinkingConfig"] = value
        elif key == "response_format" and isinstance(value, dict) and value.get("type") == "json_schema":
            config["responseMimeType"] = "application/json"
            config["responseJsonSchema"] = (value.get("json_schema") or {}).get("schema") or {}
        elif key == "response_format" and isinstance(value, dict) and value.get("type") == "json_object":
            config["responseMimeType"] = "application/json"
        elif key == "tool_choice":
            choice = value
        else:
            extra[key] = value
    return config, extra, choice


def request(
    messages: list[ChatMessage], tools: list[dict[str, Any]] | None, params: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(the generateContent body, extra keys for the body as given)`` (see the module doc)."""
    system, turns = contents(messages)
    config, extra, choice = generation(params)
    body: dict[str, Any] = {"contents": turns}
    if system is not None:
        body["systemInstruction"] = system
    declared = tools_of(tools)
    if declared:
        body["tools"] = declared
        tc = tool_config(choice)
        if tc is not None:
            body["toolConfig"] = tc
    if config:
        body["generationConfig"] = config
    return body, extra
