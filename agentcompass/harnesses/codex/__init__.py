"""The ``codex`` harness: OpenAI's Codex CLI (npm ``@openai/codex``, its native build) run in its non-interactive
mode (``codex exec --json``) on the model gateway."""

from .agent import CodexConfig, CodexHarness

__all__ = ["CodexConfig", "CodexHarness"]
