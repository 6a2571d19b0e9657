"""The ``kilo`` harness: Kilo Code's CLI (npm ``@kilocode/cli``, its native build) run non-interactively
(``kilo run --format=json --auto``) on the model gateway (registered as an OpenAI-compatible provider)."""

from .agent import KiloConfig, KiloHarness

__all__ = ["KiloConfig", "KiloHarness"]
