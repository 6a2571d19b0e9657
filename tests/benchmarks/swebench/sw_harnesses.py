"""A scripted agent for the SWE-bench docker tests (selected with ``harness._target_=...``): it runs fixed shell
commands in the agent's environment, then submits the diff of the repository (or the gold patch)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from agentcompass.errors import AgentError
from agentcompass.interfaces import AgentResult


class ScriptConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    commands: list[str] = Field(default_factory=list, description="shell commands run in order in the workdir")
    gold: bool = Field(False, description="submit the benchmark's reference patch instead of the repo's diff")
    runs_log: str | None = Field(None, description="host file that gets one line per agent run")


class ScriptHarness:
    requires_model: ClassVar[bool] = False
    config_class = ScriptConfig

    def __init__(self, config: ScriptConfig, ctx) -> None:
        self.config = config

    async def run(self, task, env, model, ctx) -> AgentResult:
        if self.config.runs_log:
            with Path(self.config.runs_log).open("a") as fh:
                fh.write(f"{task.id}\n")
        for cmd in self.config.commands:
            res = await env.exec(cmd, timeout=120)
            if res.exit_code != 0:
                raise AgentError(f"command failed ({res.exit_code}): {cmd}: {res.output[-500:]}")
        if self.config.gold:
            return AgentResult(exit_status="submitted", submission=ctx.benchmark.reference_solution(task).submission)
        diff = await env.exec("git diff", timeout=60)
        return AgentResult(exit_status="submitted", submission=diff.stdout)
