"""The Gemini API -> OpenAI Responses (Gemini CLI on OpenAI's Responses API).

Request: read as a chat request (:mod:`._gemini_in`), then as Responses input: system messages the
``instructions``, user and assistant messages ``message`` items, tool calls ``function_call`` items, tool results
``function_call_output`` items; function tools as Responses function tools; ``tool_choice``; ``max_tokens`` ->
``max_output_tokens``, ``temperature``, ``top_p``, ``reasoning_effort`` -> ``reasoning.effort``, a JSON schema
response format -> ``text.format``. ``topK`` (a sampling setting Gemini CLI always sends) is left out with a
warning; what else Responses has no field for (``stop``, ``seed``, penalties) is refused naming it.
Reply: :mod:`._read_responses`, written as a Gemini reply (:mod:`._write_gemini`).
"""

from __future__ import annotations

from typing import Any

from agentcompass.models.wire import ChatResponseFormat, GeminiRequest, JsonObject
from agentcompass.models.wire import tool_shapes as _tools

from . import _gemini_in, _read_responses, _write_gemini
from ._common import Refuser

AGENT, UPSTREAM = "google-genai", "openai-responses"
read, writer, body = _read_responses, _write_gemini.StreamWriter, _write_gemini.body
_NO_FIELD = ("stop", "seed", "presence_penalty", "frequency_penalty")


def _format(fmt: ChatResponseFormat) -> JsonObject:
    if fmt.get("type") == "json_schema":
        schema = fmt.get("json_schema") or {}
        return {"type": "json_schema", "name": schema.get("name", "response"), "schema": schema.get("schema") or {},
                "strict": bool(schema.get("strict"))}  # fmt: skip
    return {"type": "json_object"}


def request(agent: GeminiRequest, warnings: list[str]) -> dict[str, object]:
    """The Responses request for a Gemini request."""
    refuse = Refuser(AGENT, UPSTREAM)
    chat = _gemini_in.chat(agent, warnings, refuse)
    if chat.pop("top_k", None) is not None:  # Gemini CLI always sends its default (64)
        warnings.append("generationConfig.topK left out: the Responses API samples without it (gateway translation)")
    for key in _NO_FIELD:
        if chat.get(key) is not None:
            raise refuse(f"{key} (the Responses API has no such setting)")
    instructions, items = _tools.responses_input(chat["messages"])
    out: dict[str, Any] = {"model": chat.get("model"), "input": items}
    if instructions:
        out["instructions"] = instructions
    if chat.get("tools"):
        out["tools"] = _tools.responses_tools(chat["tools"])
        if chat.get("tool_choice") is not None:
            out["tool_choice"] = _tools.responses_tool_choice(chat["tool_choice"])
    if chat.get("max_tokens") is not None:
        out["max_output_tokens"] = chat["max_tokens"]
    for key in ("temperature", "top_p", "stream"):
        if chat.get(key) is not None:
            out[key] = chat[key]
    if chat.get("reasoning_effort"):
        out["reasoning"] = {"effort": chat["reasoning_effort"]}
    if chat.get("response_format"):
        out["text"] = {"format": _format(chat["response_format"])}
    return out
