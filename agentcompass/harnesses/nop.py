"""The ``nop`` harness: does nothing (no task should be passable by doing nothing)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from agentcompass.conversation import Termination
from agentcompass.interfaces import AgentResult, AttemptContext, ComponentContext, Environment, ModelClient, Task


class NopConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NopHarness:
    id = "nop"
    requires_model: ClassVar[bool] = False
    converses: ClassVar[bool] = True  # on a tool-use benchmark: hears the opening, then stops at once
    config_class = NopConfig

    def __init__(self, config: NopConfig, ctx: ComponentContext) -> None:
        self.config = config

    async def run(self, task: Task, env: Environment, model: ModelClient | None, ctx: AttemptContext) -> AgentResult:
        conversation = ctx.conversation
        if conversation is not None:
            await conversation.start()
            if not conversation.done:
                conversation.stop(Termination.AGENT_STOP)
            return AgentResult(exit_status="completed", n_turns=0, transcript=conversation.transcript)
        return AgentResult(exit_status="completed", submission="", n_turns=0)
