"""The ``gemini_cli`` harness: Gemini CLI (npm ``@google/gemini-cli``, a Node program, with a delivered Node runtime)
run in its non-interactive mode (``--prompt``) on the model gateway's Gemini API."""

from .agent import GeminiCliConfig, GeminiCliHarness

__all__ = ["GeminiCliConfig", "GeminiCliHarness"]
