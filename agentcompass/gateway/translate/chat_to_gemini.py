"""OpenAI Chat Completions -> the Gemini API (a chat agent on a Gemini endpoint), and the last step of the Messages
and Responses translations to it (:mod:`.messages_to_gemini`, :mod:`.responses_to_gemini`, which go by the chat form).

Request: as :mod:`agentcompass.models._gemini` builds it for the model client (system messages the
``systemInstruction``; ``tool_calls`` and ``tool`` messages ``functionCall`` / ``functionResponse`` parts, each call
with its thought signature; function tools ``functionDeclarations``; ``tool_choice`` the ``toolConfig``;
``max_tokens``, ``temperature``, ``top_p``, ``top_k``, ``stop``, ``seed``, penalties, ``n``, a JSON response format
and ``reasoning_effort`` the ``generationConfig``). ``parallel_tool_calls`` (Gemini decides), ``user``, ``store``
and ``stream_options`` are left out with a warning where they ask for something; audio, files, logprobs and any
other field are refused. Reply: :mod:`._read_gemini`.
"""

from __future__ import annotations

from typing import Any

from agentcompass.models.wire import gemini_request as _gemini

from . import _read_gemini, _write_chat
from ._common import Refuser

AGENT, UPSTREAM = "openai-chat", "google-genai"
KNOWN = frozenset(
    {"model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "top_k", "stop", "stream"}
    | {"stream_options", "tools", "tool_choice", "parallel_tool_calls", "user", "reasoning_effort", "n", "store"}
    | {"response_format", "seed", "presence_penalty", "frequency_penalty", "verbosity"}
)
PARAMS = frozenset(_gemini.GENERATION) | {"stop", "reasoning_effort", "response_format", "tool_choice"}
read, writer, body = _read_gemini, _write_chat.StreamWriter, _write_chat.body


def _check(chat: dict[str, Any], refuse: Refuser, warnings: list[str]) -> None:
    for i, message in enumerate(chat.get("messages") or []):
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") not in ("text", "image_url"):
                raise refuse(f"messages[{i}]: content part type {part.get('type')!r}")
        if message.get("role") not in ("system", "developer", "user", "assistant", "tool"):
            raise refuse(f"messages[{i}].role {message.get('role')!r}")
    for tool in chat.get("tools") or []:
        if tool.get("type") != "function":
            raise refuse(f"tool type {tool.get('type')!r}")
    fmt = (chat.get("response_format") or {}).get("type", "text")
    if fmt not in ("text", "json_object", "json_schema"):
        raise refuse(f"response_format type {fmt!r}")
    for key in ("user", "verbosity"):
        if chat.get(key):
            warnings.append(f"{key} left out: no counterpart in the Gemini API (gateway translation)")
    if chat.get("parallel_tool_calls") is False:
        warnings.append("parallel_tool_calls=false left out: Gemini decides how many calls a reply makes")


def gemini(chat: dict[str, Any], warnings: list[str], refuse: Refuser) -> dict[str, object]:
    """The Gemini request for a chat request (``model`` and ``stream`` kept: they go in the URL)."""
    _check(chat, refuse, warnings)
    params = {k: v for k, v in chat.items() if k in PARAMS and v is not None}
    if chat.get("max_completion_tokens") is not None:
        params["max_tokens"] = chat["max_completion_tokens"]
    request, extra = _gemini.request(chat.get("messages") or [], chat.get("tools"), params)
    if extra:
        raise refuse(f"unsupported field(s) {', '.join(sorted(extra))}")
    return {"model": chat.get("model"), **({"stream": True} if chat.get("stream") else {}), **request}


def request(agent: dict[str, Any], warnings: list[str]) -> dict[str, object]:
    """The Gemini request for a chat request."""
    refuse = Refuser(AGENT, UPSTREAM)
    refuse.unknown_keys(agent, KNOWN)
    if (agent.get("n") or 1) != 1:
        raise refuse(f"n={agent['n']} (one choice only)")
    return gemini(agent, warnings, refuse)
