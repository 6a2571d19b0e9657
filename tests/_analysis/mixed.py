"""A harness and a benchmark that fail on purpose in many ways, one way per synthetic task.

=======  =============================================================  ==================
task     what happens                                                   final outcome
=======  =============================================================  ==================
syn-0    correct answer                                                 resolved
syn-1    wrong answer                                                   unresolved
syn-2    SandboxError on every attempt (retried once)                   infra_error
syn-3    AgentError                                                     agent_error
syn-4    step limit hit, partial answer                                 unresolved
syn-5    sleeps past the agent timeout                                  unresolved
syn-6    correct answer after 3 format errors                           resolved
syn-7    the verifier produces no reward                                verifier_error
syn-8    ModelError                                                     model_error
syn-9    SandboxError on the first attempt, then correct                resolved
=======  =============================================================  ==================
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from agentcompass.errors import AgentError, ModelError, SandboxError
from agentcompass.interfaces import AgentResult, Grade, Usage
from agentcompass.testing.synthetic import SyntheticBenchmark

CALLS: Counter = Counter()
BOOM = "VERIFIER-BOOM"


class MixedConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sleep_s: float = 5.0


class MixedHarness:
    requires_model: ClassVar[bool] = False
    config_class = MixedConfig

    def __init__(self, config: MixedConfig, ctx) -> None:
        self.config = config

    async def run(self, task, env, model, ctx) -> AgentResult:
        i = int(task.id.split("-")[1])
        CALLS[task.id] += 1
        answer = task.data
        usage = Usage(input_tokens=100 * (i + 1), output_tokens=10 * (i + 1), cost_usd=0.001 * (i + 1), n_calls=1)
        if i == 2 or (i == 9 and CALLS[task.id] == 1):
            raise SandboxError(f"container vanished: id {'3f9a2b7c1d' if i == 2 else '9c8d7e6f5a'}{CALLS[task.id]}")
        if i == 3:
            raise AgentError("harness crashed at step 17")
        if i == 8:
            raise ModelError("HTTP 400 from http://127.0.0.1:9/v1/chat/completions: bad request", status=400)
        if i == 5:
            await asyncio.sleep(self.config.sleep_s)
        result = AgentResult(submission=answer, n_turns=i + 1, usage=usage)
        if i == 1:
            result.submission = "nope"
        elif i == 4:
            result.exit_status, result.limit_hit, result.submission = "limits_exceeded", "step_limit", "partial"
        elif i == 6:
            result.n_format_errors = 3
        elif i == 7:
            result.submission = BOOM
        return result


class MixedBenchmark(SyntheticBenchmark):
    """The synthetic benchmark whose verifier breaks on the submission ``VERIFIER-BOOM``."""

    async def grade(self, task, env, agent, ctx) -> Grade:
        if agent.submission == BOOM:
            return Grade(reward=None, error="reward file /logs/verifier/reward.txt missing")
        return await super().grade(task, env, agent, ctx)
