"""A scripted shell agent for tests: runs the commands a JSON file lists for each task inside the environment and
records them as an ATIF ``trajectory.json`` (the installed agents' form: one agent step per command, a ``bash``
tool call with its ``command`` and the output as the observation), as an agent would.

Selected with ``harness._target_=agentcompass.testing.shell_harness.ShellScriptHarness`` and
``+harness.script=<file>``: ``{"<task id>": ["command", ...], "*": [...]}`` (``*``: every task not listed).
The integrity tests drive honest solutions and exploits through it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from agentcompass.harnesses.atif import Builder
from agentcompass.interfaces import AgentResult, AttemptContext, ComponentContext, Environment, ModelClient, Task
from agentcompass.kit import write_json


class ShellScriptConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    script: str = Field(description="JSON file: task id (or *) -> the commands to run, in order")
    timeout_s: float = Field(60.0, gt=0, description="timeout of each command")


class ShellScriptHarness:
    id = "shell_script"
    requires_model: ClassVar[bool] = False
    config_class = ShellScriptConfig

    def __init__(self, config: ShellScriptConfig, ctx: ComponentContext) -> None:
        self.config = config
        self.script: dict[str, list[str]] = json.loads(Path(config.script).read_text(encoding="utf-8"))

    async def run(self, task: Task, env: Environment, model: ModelClient | None, ctx: AttemptContext) -> AgentResult:
        commands = self.script.get(task.id, self.script.get("*", []))
        traj = Builder("shell-script", "1.0", "none")
        traj.user(task.instruction)
        for i, command in enumerate(commands, 1):
            traj.agent_step("", calls=[(f"call_{i}", "bash", {"command": command})])
            res = await env.exec(command, timeout=self.config.timeout_s)
            traj.result(f"call_{i}", f"exit {res.exit_code}\n{res.output[-4000:]}")
        write_json(Path(ctx.attempt_dir) / "trajectory.json", traj.to_dict(), ensure_ascii=False)
        return AgentResult(exit_status="completed", submission="", n_turns=len(commands))
