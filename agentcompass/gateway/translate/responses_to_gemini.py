"""OpenAI Responses -> the Gemini API (Codex CLI on a Gemini endpoint): read as a chat request
(:mod:`.responses_to_chat`: instructions, items, function / custom / namespace tools, what it refuses or leaves
out), then put in the Gemini form (:mod:`.chat_to_gemini`). Reply: :mod:`._read_gemini`, written as a Responses
reply."""

from __future__ import annotations

from agentcompass.errors import TranslationError
from agentcompass.models.wire import ResponsesRequest

from . import _common, _read_gemini, _write_responses, chat_to_gemini, responses_to_chat
from ._common import Refuser

AGENT, UPSTREAM = "openai-responses", "google-genai"
read, writer, body = _read_gemini, _write_responses.StreamWriter, _write_responses.body


def request(agent: ResponsesRequest, warnings: list[str]) -> dict[str, object]:
    try:
        chat = responses_to_chat.request(agent, warnings)
    except TranslationError as exc:
        inner = _common.where(AGENT, responses_to_chat.UPSTREAM)
        raise TranslationError(str(exc).replace(inner, _common.where(AGENT, UPSTREAM))) from None
    return chat_to_gemini.gemini(chat, warnings, Refuser(AGENT, UPSTREAM))
