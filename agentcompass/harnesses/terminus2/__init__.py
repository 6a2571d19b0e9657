"""The ``terminus2`` harness (Terminus-2): JSON replies driving a tmux session. See FORMATS.md D."""

from agentcompass.harnesses.terminus2.agent import Terminus2Harness
from agentcompass.harnesses.terminus2.config import Terminus2Config

__all__ = ["Terminus2Config", "Terminus2Harness"]
