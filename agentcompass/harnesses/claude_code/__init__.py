"""The ``claude_code`` harness: Anthropic's Claude Code (npm ``@anthropic-ai/claude-code``, its native binary) run
in its non-interactive mode (``claude --print --output-format=stream-json``) on the model gateway."""

from .agent import ClaudeCodeConfig, ClaudeCodeHarness

__all__ = ["ClaudeCodeConfig", "ClaudeCodeHarness"]
