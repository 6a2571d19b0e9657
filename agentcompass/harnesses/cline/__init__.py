"""The ``cline`` harness: the Cline CLI (npm ``cline``, its native build ``@cline/cli-<os>-<arch>``) run
non-interactively (``cline --json --yolo -- PROMPT``) on the model gateway (OpenAI Chat Completions, Cline's
``openai-compatible`` provider)."""

from .agent import ClineConfig, ClineHarness

__all__ = ["ClineConfig", "ClineHarness"]
