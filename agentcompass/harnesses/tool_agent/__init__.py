"""The ``tool_agent`` harness: a native tool-calling agent for tool-use benchmarks (τ²-bench's reference LLM agent)."""

from agentcompass.harnesses.tool_agent.agent import ToolAgentHarness
from agentcompass.harnesses.tool_agent.config import ToolAgentConfig

__all__ = ["ToolAgentConfig", "ToolAgentHarness"]
