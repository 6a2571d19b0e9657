"""The Gemini API -> Anthropic Messages (Gemini CLI on an Anthropic endpoint).

Request: read as a chat request (:mod:`._gemini_in`), then put in the Messages form as :mod:`.chat_to_messages`
does (system, alternating turns, ``tool_use`` / ``tool_result`` blocks, ``max_tokens`` required, reasoning effort
as a thinking budget). What the Messages API has no counterpart for (a JSON response format, ``seed``, penalties)
is refused naming it. Reply: the Messages reply (body or stream) written as a Gemini reply (:mod:`._write_gemini`).
"""

from __future__ import annotations

from agentcompass.errors import TranslationError
from agentcompass.models.wire import GeminiRequest

from . import _common, _gemini_in, _read_messages, _write_gemini, chat_to_messages
from ._common import Refuser

AGENT, UPSTREAM = "google-genai", "anthropic-messages"
read, writer, body = _read_messages, _write_gemini.StreamWriter, _write_gemini.body


def request(agent: GeminiRequest, warnings: list[str]) -> dict[str, object]:
    """The Messages request for a Gemini request."""
    chat = _gemini_in.chat(agent, warnings, Refuser(AGENT, UPSTREAM))
    try:
        return chat_to_messages.request(chat, warnings)
    except TranslationError as exc:
        inner = _common.where(chat_to_messages.AGENT, UPSTREAM)
        raise TranslationError(str(exc).replace(inner, _common.where(AGENT, UPSTREAM))) from None
