"""Configuration of the ``tool_agent`` harness (``conf/harness/tool_agent.yaml``, ``harness_params``).

The defaults are the request of τ²-bench's reference LLM agent (``tau2.agent.llm_agent.LLMAgent`` with the runner's
``DEFAULT_LLM_ARGS_AGENT``): ``temperature: 0.0``, ``tool_choice: auto`` whenever there are tools, and the
conversation's seed (``transcript.info["seed"]``, what the orchestrator's ``set_seed`` gives the agent).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_PARAMS: dict[str, Any] = {"temperature": 0.0}  # tau2.config.DEFAULT_LLM_ARGS_AGENT


class ToolAgentConfig(BaseModel):
    """Settings of the tool-calling loop."""

    model_config = ConfigDict(extra="forbid")

    params: dict[str, Any] = Field(
        default_factory=lambda: dict(DEFAULT_PARAMS),
        description="Request parameters of every model call (temperature, max_tokens, seed...); replaces the "
        "default {temperature: 0.0} whole.",
    )
    tool_choice: str | None = Field(
        "auto", description="tool_choice sent when the conversation has tools (null: not sent)."
    )
    conversation_seed: bool = Field(
        True,
        description="Send the conversation's seed (transcript.info['seed']) as the 'seed' parameter when params "
        "has none, as τ²-bench's orchestrator seeds its agent.",
    )
    max_steps: int | None = Field(
        1000,
        ge=1,
        description="Model calls of the agent; reaching it ends the conversation (termination harness_limit) "
        "with limit_hit='step_limit'. null: no limit of the harness's own (the benchmark's limits still apply).",
    )
