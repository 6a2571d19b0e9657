"""``echo_agent``: reads the word after the instruction's last colon, writes it to answer.txt and submits it."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from agentcompass.interfaces import AgentResult, AttemptContext, ComponentContext, Environment, ModelClient, Task


class EchoAgentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer_file: str = Field("answer.txt", description="where the answer is written, relative to the workdir")


class EchoAgent:
    requires_model: ClassVar[bool] = False
    config_class = EchoAgentConfig

    def __init__(self, config: EchoAgentConfig, ctx: ComponentContext) -> None:
        self.config = config

    async def run(self, task: Task, env: Environment, model: ModelClient | None, ctx: AttemptContext) -> AgentResult:
        answer = task.instruction.rsplit(":", 1)[-1].strip().split()[-1]
        await env.write_file(env.path(self.config.answer_file), answer + "\n")
        return AgentResult(exit_status="submitted", submission=answer, n_turns=1)
