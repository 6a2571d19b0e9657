"""The Gemini API -> OpenAI Chat Completions (Gemini CLI on a vLLM / SGLang / OpenRouter endpoint).

Request: :mod:`._gemini_in` (contents, system instruction, function declarations and calls, tool config,
generation and thinking settings; what has no counterpart is refused, Google's hosted tools and safety settings
left out with a warning). Reply: the chat reply (body or stream) read into the neutral form and written as a
Gemini reply (:mod:`._write_gemini`).
"""

from __future__ import annotations

from agentcompass.models.wire import GeminiRequest

from . import _gemini_in, _read_chat, _write_gemini
from ._common import Refuser

AGENT, UPSTREAM = "google-genai", "openai-chat"
read, writer, body = _read_chat, _write_gemini.StreamWriter, _write_gemini.body


def request(agent: GeminiRequest, warnings: list[str]) -> dict[str, object]:
    """The chat request for a Gemini request."""
    return _gemini_in.chat(agent, warnings, Refuser(AGENT, UPSTREAM))
