"""Anthropic Messages -> the Gemini API (Claude Code on a Gemini endpoint): read as a chat request
(:mod:`.messages_to_chat`: system, turns, ``tool_use`` / ``tool_result`` blocks, thinking budgets and effort, what
it refuses or leaves out), then put in the Gemini form (:mod:`.chat_to_gemini`). Reply: :mod:`._read_gemini`,
written as a Messages reply."""

from __future__ import annotations

from agentcompass.errors import TranslationError
from agentcompass.models.wire import AnthropicRequest

from . import _common, _read_gemini, _write_messages, chat_to_gemini, messages_to_chat
from ._common import Refuser

AGENT, UPSTREAM = "anthropic-messages", "google-genai"
read, writer, body = _read_gemini, _write_messages.StreamWriter, _write_messages.body


def request(agent: AnthropicRequest, warnings: list[str]) -> dict[str, object]:
    try:
        chat = messages_to_chat.request(agent, warnings)
    except TranslationError as exc:
        inner = _common.where(AGENT, messages_to_chat.UPSTREAM)
        raise TranslationError(str(exc).replace(inner, _common.where(AGENT, UPSTREAM))) from None
    return chat_to_gemini.gemini(chat, warnings, Refuser(AGENT, UPSTREAM))
