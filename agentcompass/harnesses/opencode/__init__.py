"""The ``opencode`` harness: opencode (npm ``opencode-ai``, its native build) run in its non-interactive mode
(``opencode run --format=json``) on the model gateway."""

from .agent import OpenCodeConfig, OpenCodeHarness

__all__ = ["OpenCodeConfig", "OpenCodeHarness"]
