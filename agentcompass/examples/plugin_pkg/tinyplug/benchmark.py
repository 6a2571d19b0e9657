"""``echo``: task echo-<i> asks for the word ``word-<i>``; the submission must be exactly that word."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agentcompass.errors import ConfigError
from agentcompass.interfaces import (
    AgentResult,
    AttemptContext,
    ComponentContext,
    Environment,
    EnvSpec,
    Grade,
    Solution,
    Task,
)


class EchoConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    n_tasks: int = Field(3, ge=1, le=100, description="number of tasks")
    sample_ids: list[str] | None = Field(None, description="only these task ids")
    limit: int | None = Field(None, ge=0, description="at most this many tasks")


class EchoBenchmark:
    config_class = EchoConfig

    def __init__(self, config: EchoConfig, ctx: ComponentContext) -> None:
        self.config = config

    def load(self) -> list[Task]:
        tasks = [
            Task(id=f"echo-{i}", instruction=f"Say the word: word-{i}", data=f"word-{i}")
            for i in range(self.config.n_tasks)
        ]
        if self.config.sample_ids is not None:
            unknown = sorted(set(self.config.sample_ids) - {t.id for t in tasks})
            if unknown:
                raise ConfigError(f"benchmark 'echo': unknown sample_ids {unknown}")
            tasks = [t for t in tasks if t.id in self.config.sample_ids]
        return tasks[: self.config.limit] if self.config.limit is not None else tasks

    def env_spec(self, task: Task) -> EnvSpec:
        return EnvSpec(task_id=task.id, benchmark=self.id, workdir="/app")

    async def setup(self, task: Task, env: Environment, ctx: AttemptContext) -> None:
        return None

    async def grade(self, task: Task, env: Environment, agent: AgentResult, ctx: AttemptContext) -> Grade:
        ok = (agent.submission or "").strip() == task.data
        return Grade(reward=1.0 if ok else 0.0, resolved=ok)

    def reference_solution(self, task: Task) -> Solution:
        return Solution(submission=task.data)

    def finalize(self, run_dir: Path, rows: list[dict[str, Any]]) -> dict[str, str]:
        return {}
