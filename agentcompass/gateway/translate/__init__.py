"""Protocol translation: an agent's API to the endpoint's, one module per direction.

=========================  =========================  ============================================
agent's API                endpoint's protocol        module
=========================  =========================  ============================================
anthropic-messages         openai-chat                :mod:`.messages_to_chat` (Claude Code on vLLM)
openai-responses           openai-chat                :mod:`.responses_to_chat` (Codex on a chat endpoint)
openai-chat                anthropic-messages         :mod:`.chat_to_messages`
openai-responses           anthropic-messages         :mod:`.responses_to_messages` (Codex on Anthropic)
google-genai               openai-chat                :mod:`.gemini_to_chat` (Gemini CLI on vLLM)
google-genai               anthropic-messages         :mod:`.gemini_to_messages`
google-genai               openai-responses           :mod:`.gemini_to_responses`
openai-chat                google-genai               :mod:`.chat_to_gemini` (chat agents on Gemini)
anthropic-messages         google-genai               :mod:`.messages_to_gemini` (Claude Code on Gemini)
openai-responses           google-genai               :mod:`.responses_to_gemini` (Codex on Gemini)
=========================  =========================  ============================================

Each module has ``request(agent_body, warnings) -> upstream body`` (raising
:class:`~agentcompass.errors.TranslationError` naming what has no counterpart), and names the reader of the
endpoint's replies (``read``: ``body(data)`` and ``Stream``) and the writer of the agent's (``body`` and
``writer``), which meet in the neutral form of :mod:`._reply`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

MESSAGES, RESPONSES, CHAT, GEMINI = "anthropic-messages", "openai-responses", "openai-chat", "google-genai"
DIRECTIONS = {
    (GEMINI, CHAT): "gemini_to_chat",
    (GEMINI, MESSAGES): "gemini_to_messages",
    (GEMINI, RESPONSES): "gemini_to_responses",
    (CHAT, GEMINI): "chat_to_gemini",
    (MESSAGES, GEMINI): "messages_to_gemini",
    (RESPONSES, GEMINI): "responses_to_gemini",
    (MESSAGES, CHAT): "messages_to_chat",
    (RESPONSES, CHAT): "responses_to_chat",
    (CHAT, MESSAGES): "chat_to_messages",
    (RESPONSES, MESSAGES): "responses_to_messages",
}


class Translation:
    """One agent request put into the endpoint's protocol (``request``, ``warnings``), and its reply put back
    (:meth:`reply` for a body, :meth:`stream` for events)."""

    def __init__(self, module: Any, agent_body: Mapping[str, object]) -> None:
        self.module = module
        self.agent, self.upstream = module.AGENT, module.UPSTREAM
        self.agent_body = agent_body
        self.warnings: list[str] = []
        self.request = module.request(agent_body, self.warnings)

    def reply(self, upstream_body: Mapping[str, object]) -> dict[str, object]:
        """The agent's reply body for the endpoint's reply body."""
        return self.module.body(self.module.read.body(upstream_body), self.agent_body)

    def stream(self) -> StreamTranslation:
        return StreamTranslation(self.module, self.agent_body)


class StreamTranslation:
    """The endpoint's stream events in, the agent's out: :meth:`feed` per event, :meth:`finish` at the end."""

    def __init__(self, module: Any, agent_body: Mapping[str, object]) -> None:
        self.writer = module.writer(agent_body)
        self.reader = module.read.Stream(self.writer)

    def feed(self, event: str | None, data: Any) -> list[tuple[str | None, Any]]:
        self.reader.feed(event, data)
        return self.writer.take()

    def finish(self) -> tuple[list[tuple[str | None, Any]], bool]:
        """The events still owed at the end of the endpoint's stream, and whether it ended as it should (an end
        marker, or an error event passed on); a stream cut short ends with an error event."""
        ended = self.writer.ended
        if not ended:
            self.writer.fail(502, "the endpoint's stream ended before its last event")
        return self.writer.take(), ended

    def fail(self, status: int, message: str) -> list[tuple[str | None, Any]]:
        if not self.writer.ended:
            self.writer.fail(status, message)
        return self.writer.take()


def translation(agent: str, upstream: str, agent_body: Mapping[str, object]) -> Translation | None:
    """The translation of ``agent_body`` from ``agent`` to ``upstream``; None when there is no such direction.
    Raises TranslationError for what cannot be translated."""
    name = DIRECTIONS.get((agent, upstream))
    if name is None:
        return None
    return Translation(importlib.import_module(f"{__package__}.{name}"), agent_body)
