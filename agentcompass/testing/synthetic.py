"""``synthetic``: an in-process benchmark for measuring the framework itself (no files, no commands).

Task ``syn-<i>`` asks for the answer ``answer-<i>``; the reward is 1 when the submission equals it. The
reference solution submits it; grading reads only the submission, so a checkpointed agent result can be
re-verified on a fresh environment (``resumable_from_submission``).
"""

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

MAX_TASKS = 100_000  # every task is held in memory with its pending attempt: bound the size


class SyntheticConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    n_tasks: int = Field(10, ge=0, le=MAX_TASKS, description=f"number of tasks (at most {MAX_TASKS:,})")
    sample_ids: list[str] | None = Field(None, description="only these task ids")
    limit: int | None = Field(None, ge=0, description="at most this many tasks")


class SyntheticBenchmark:
    id = "synthetic"
    config_class = SyntheticConfig
    resumable_from_submission = True

    def __init__(self, config: SyntheticConfig, ctx: ComponentContext) -> None:
        self.config = config

    def load(self) -> list[Task]:
        tasks = [
            Task(id=f"syn-{i}", instruction=f"Submit the text answer-{i}.", data=f"answer-{i}")
            for i in range(self.config.n_tasks)
        ]
        if self.config.sample_ids is not None:
            known = {t.id for t in tasks}
            unknown = [s for s in self.config.sample_ids if s not in known]
            if unknown:
                raise ConfigError(
                    f"benchmark 'synthetic': unknown sample_ids {unknown}; valid: syn-0..syn-{self.config.n_tasks - 1}"
                )
            tasks = [t for t in tasks if t.id in set(self.config.sample_ids)]
        return tasks[: self.config.limit] if self.config.limit is not None else tasks

    def env_spec(self, task: Task) -> EnvSpec:
        return EnvSpec(task_id=task.id, benchmark=self.id, workdir="/")

    async def setup(self, task: Task, env: Environment, ctx: AttemptContext) -> None:
        return None

    async def grade(self, task: Task, env: Environment, agent: AgentResult, ctx: AttemptContext) -> Grade:
        ok = (agent.submission or "").strip() == task.data
        return Grade(reward=1.0 if ok else 0.0, resolved=ok)

    def reference_solution(self, task: Task) -> Solution:
        return Solution(submission=task.data)

    def finalize(self, run_dir: Path, rows: list[dict[str, Any]]) -> dict[str, str]:
        return {}
