"""The ``oracle`` harness: applies the benchmark's reference solution (every task should score 1).

A task without a reference solution is an agent-phase failure (:class:`AgentError`), as Harbor's oracle raises
one: under a verify-after-error policy (Terminal-Bench) the verifier still runs and its reward counts.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from agentcompass.conversation import Conversation, Message, Termination
from agentcompass.errors import AgentError, DatasetError
from agentcompass.interfaces import (
    AgentResult,
    AttemptContext,
    ComponentContext,
    Environment,
    ModelClient,
    Solution,
    Task,
)


class OracleConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fail_on_error: bool = Field(False, description="raise an agent error when the solution command exits non-zero")


class OracleHarness:
    """Uploads the solution files, runs the solution command, and submits the solution's submission."""

    id = "oracle"
    requires_model: ClassVar[bool] = False
    converses: ClassVar[bool] = True  # a tool-use benchmark's reference messages, sent in order
    config_class = OracleConfig

    def __init__(self, config: OracleConfig, ctx: ComponentContext) -> None:
        self.config = config

    async def run(self, task: Task, env: Environment, model: ModelClient | None, ctx: AttemptContext) -> AgentResult:
        try:
            solution = ctx.benchmark.reference_solution(task)
        except DatasetError as exc:
            raise AgentError(f"oracle: {exc}") from exc
        if ctx.conversation is not None:
            return await _converse(ctx.conversation, solution)
        for dst, src in solution.files.items():
            await env.upload(src, dst)
        info: dict = {}
        if solution.command:
            result = await env.exec(solution.command, env=solution.env or None, timeout=ctx.time_limit_s)
            info = {"exit_code": result.exit_code, "output_tail": result.output[-2000:]}
            (ctx.attempt_dir / "agent.log").write_text(result.output, encoding="utf-8")
            if result.exit_code != 0 and self.config.fail_on_error:
                raise AgentError(f"reference solution exited {result.exit_code}")
        return AgentResult(exit_status="completed", submission=solution.submission, n_turns=1, info=info)


async def _converse(conversation: Conversation, solution: Solution) -> AgentResult:
    """Send the solution's agent messages in order (a tool-use benchmark), then end the conversation."""
    await conversation.start()
    sent = 0
    for data in solution.messages:
        if conversation.done:
            break
        await conversation.send(Message.from_dict({"role": "assistant", **data}))
        sent += 1
    if not conversation.done:
        conversation.stop(Termination.AGENT_STOP)
    return AgentResult(exit_status="completed", n_turns=sent, transcript=conversation.transcript)
