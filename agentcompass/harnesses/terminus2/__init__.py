"""The ``terminus2`` harness: Harbor 0.26.0's Terminus-2 (JSON replies driving a tmux session); docs/terminus2.md."""

from agentcompass.harnesses.terminus2.agent import Terminus2Harness
from agentcompass.harnesses.terminus2.config import Terminus2Config

__all__ = ["Terminus2Config", "Terminus2Harness"]
