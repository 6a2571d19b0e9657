"""Harnesses for the Terminal-Bench docker tests (selected with ``harness._target_=...`` overrides)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from agentcompass.interfaces import AgentResult

PROBE_SCRIPT = r"""
for p in /tests /solution /logs/agent /logs/verifier; do
  if [ -e "$p" ]; then echo "$p=1"; else echo "$p=0"; fi
done
echo "cwd=$PWD"
if [ -r /sys/fs/cgroup/memory.max ]; then echo "memory=$(cat /sys/fs/cgroup/memory.max)"
else echo "memory=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes)"; fi
if [ -r /sys/fs/cgroup/cpu.max ]; then echo "cpu=$(cat /sys/fs/cgroup/cpu.max)"
else echo "cpu=$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)"; fi
"""


class _NoConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EnvProbeHarness:
    """Looks around the environment while "the agent runs" and reports what it saw in ``AgentResult.info``."""

    requires_model: ClassVar[bool] = False
    config_class = _NoConfig

    def __init__(self, config: _NoConfig, ctx) -> None:
        self.config = config

    async def run(self, task, env, model, ctx) -> AgentResult:
        res = await env.exec(PROBE_SCRIPT, timeout=60)
        seen = dict(line.split("=", 1) for line in res.stdout.splitlines() if "=" in line)
        return AgentResult(exit_status="completed", n_turns=1, info={"seen": seen, "exit_code": res.exit_code})


class SleepConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sleep_s: float = 30.0


class SleepHarness:
    """Runs ``sleep`` inside the environment for longer than the task's agent timeout."""

    requires_model: ClassVar[bool] = False
    config_class = SleepConfig

    def __init__(self, config: SleepConfig, ctx) -> None:
        self.config = config

    async def run(self, task, env, model, ctx) -> AgentResult:
        await env.exec(f"sleep {self.config.sleep_s:g}", timeout=self.config.sleep_s + 30)
        return AgentResult(exit_status="completed", n_turns=1)
