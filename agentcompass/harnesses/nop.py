"""The ``nop`` harness: does nothing (no task should be passable by doing nothing)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from agentcompass.interfaces import AgentResult, AttemptContext, ComponentContext, Environment, ModelClient, Task


class NopConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NopHarness:
    id = "nop"
    requires_model: ClassVar[bool] = False
    config_class = NopConfig

    def __init__(self, config: NopConfig, ctx: ComponentContext) -> None:
        self.config = config

    async def run(self, task: Task, env: Environment, model: ModelClient | None, ctx: AttemptContext) -> AgentResult:
        return AgentResult(exit_status="completed", submission="", n_turns=0)
