"""Components for the fresh-grading orchestrator tests (selected with ``<group>._target_=...`` overrides).

``RecordingProvider`` is the memory environment provider that records every open and close in a class-level
event list; ``FreshBenchmark`` is the synthetic benchmark grading in a fresh environment (``FreshGrading``), its
grade checking that the agent's marker file is NOT there; ``MarkHarness`` writes that marker and submits the
answer; ``GivenHarness`` touches no environment (``needs_environment = False``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from agentcompass.environments.memory import MemoryConfig, MemoryEnvironment, MemoryProvider
from agentcompass.interfaces import AgentResult, EnvSpec, Grade
from agentcompass.testing.synthetic import SyntheticBenchmark, SyntheticConfig

EVENTS: list[tuple[str, str, str]] = []  # (event, task id, role)
MARK = "/agent-was-here"


class _Env(MemoryEnvironment):
    def __init__(self, spec: EnvSpec) -> None:
        super().__init__(spec)
        self.task_id, self.role = spec.task_id, spec.labels.get("agentcompass.role", "agent")

    async def close(self) -> None:
        if self.files is not None:
            EVENTS.append(("close", self.task_id, self.role))
        await super().close()
        self.files = None  # closed: a second close records nothing

    def describe(self) -> dict:
        return {**super().describe(), "role": self.role}


class RecordingProvider(MemoryProvider):
    config_class = MemoryConfig

    async def open(self, spec: EnvSpec) -> _Env:
        env = _Env(spec)
        EVENTS.append(("open", spec.task_id, env.role))
        return env


class FreshConfig(SyntheticConfig):
    hold_file: str | None = Field(None, description="the grade waits while this host file exists")
    fresh: bool = Field(True, description="declare a grading environment")
    empty_means_zero: bool = Field(False, description="grade an empty submission without an environment")


class FreshBenchmark(SyntheticBenchmark):
    config_class = FreshConfig

    def grading_env_spec(self, task):
        return EnvSpec(task_id=task.id, benchmark=self.id, workdir="/") if self.config.fresh else None

    def grade_without_env(self, task, agent, ctx):
        if self.config.empty_means_zero and not agent.submission:
            return Grade(reward=0.0, resolved=False, details={"status": "empty"})
        return None

    async def grade(self, task, env, agent, ctx) -> Grade:
        while self.config.hold_file and Path(self.config.hold_file).exists():
            await asyncio.sleep(0.05)
        fresh = MARK not in env.files
        ok = fresh and (agent.submission or "").strip() == task.data
        return Grade(reward=1.0 if ok else 0.0, resolved=ok, details={"fresh": fresh})


class HarnessConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    runs_log: str | None = None
    submit: bool = True


class MarkHarness:
    requires_model: ClassVar[bool] = False
    config_class = HarnessConfig

    def __init__(self, config: HarnessConfig, ctx) -> None:
        self.config = config

    async def run(self, task, env, model, ctx) -> AgentResult:
        if self.config.runs_log:
            with Path(self.config.runs_log).open("a") as fh:
                fh.write(task.id + "\n")
        await env.write_file(MARK, b"1")
        return AgentResult(submission=task.data if self.config.submit else "")


class GivenHarness(MarkHarness):
    needs_environment: ClassVar[bool] = False

    async def run(self, task, env, model, ctx) -> AgentResult:
        assert env is None
        return AgentResult(submission=ctx.benchmark.reference_solution(task).submission)
