"""``SleepHarness``: waits ``sleep_s`` then submits the reference solution's submission (pool and load tests)."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from agentcompass.interfaces import AgentResult, AttemptContext, ComponentContext, Environment, ModelClient, Task


class SleepConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sleep_s: float = Field(0.05, ge=0, description="simulated agent time per attempt")


class SleepHarness:
    requires_model: ClassVar[bool] = False
    config_class = SleepConfig

    def __init__(self, config: SleepConfig, ctx: ComponentContext) -> None:
        self.config = config

    async def run(self, task: Task, env: Environment, model: ModelClient | None, ctx: AttemptContext) -> AgentResult:
        await asyncio.sleep(self.config.sleep_s)
        return AgentResult(submission=ctx.benchmark.reference_solution(task).submission, n_turns=1)
