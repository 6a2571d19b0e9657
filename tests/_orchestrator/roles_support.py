"""A benchmark that grades through the ``judge`` model role (its default: model ``judge-default``, temperature 0),
and one that declares a conversation, for the model-role and composition tests."""

from __future__ import annotations

from typing import Any, ClassVar

from agentcompass.interfaces import AgentResult, AttemptContext, Grade, Task
from agentcompass.testing.synthetic import SyntheticBenchmark


class JudgedBenchmark(SyntheticBenchmark):
    """Task syn-i passes when the judge role answers ``yes`` to the submission."""

    model_roles: ClassVar[dict[str, Any]] = {"judge": {"id": "judge-default", "params": {"temperature": 0.0}}}

    async def grade(self, task: Task, env: Any, agent: AgentResult, ctx: AttemptContext) -> Grade:
        judge = ctx.model_role("judge")
        question = f"judge: is {agent.submission!r} equal to {task.data!r}?"
        reply = await judge.complete([{"role": "user", "content": question}])
        ok = reply.text.strip() == "yes"
        return Grade(reward=1.0 if ok else 0.0, resolved=ok)


class TalkingBenchmark(SyntheticBenchmark):
    """Declares a conversation (a tool-use benchmark); never reached by a harness that cannot converse."""

    async def conversation(self, task: Task, env: Any, ctx: AttemptContext) -> Any:
        raise AssertionError("a harness that cannot converse must be refused before any attempt")
