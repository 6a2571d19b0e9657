"""The ``mini_swe_agent`` harness (mini-swe-agent's text-mode loop with our own templates)."""

from .agent import MiniSweAgentHarness
from .config import MiniSweAgentConfig

__all__ = ["MiniSweAgentConfig", "MiniSweAgentHarness"]
