"""Harnesses and a benchmark that fail on purpose, for the verify-after-error policy tests and the record's write
failures (``_target_``s)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from agentcompass import errors
from agentcompass.benchmarks.terminal_bench.benchmark import TerminalBenchBenchmark
from agentcompass.harnesses.nop import NopHarness
from agentcompass.interfaces import AgentResult


class RaiseConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    error: str = "AgentError"  # a class of agentcompass.errors, or a builtin exception
    solve: bool = True  # do the task's work first (the verifier then writes 1)


def make_error(name: str) -> BaseException:
    cls = getattr(errors, name, None) or __builtins__[name]
    if cls is errors.ModelError or (isinstance(cls, type) and issubclass(cls, errors.ModelError)):
        return cls(f"{name} raised on purpose", endpoint="http://127.0.0.1:1/v1", status=400)
    return cls(f"{name} raised on purpose")


class RaisingHarness:
    """Creates ``done.txt`` (the fixture task's goal), then raises ``error`` in the agent phase."""

    requires_model: ClassVar[bool] = False
    config_class = RaiseConfig

    def __init__(self, config: RaiseConfig, ctx) -> None:
        self.config = config

    async def run(self, task, env, model, ctx) -> AgentResult:
        if self.config.solve:
            await env.write_file(f"{task.workdir}/done.txt", "done\n")
        raise make_error(self.config.error)


class FlakySetupBenchmark(TerminalBenchBenchmark):
    """A Terminal-Bench benchmark whose environment set-up fails with an infrastructure error on every call."""

    calls: ClassVar[int] = 0

    async def setup(self, task, env, ctx=None) -> None:
        FlakySetupBenchmark.calls += 1
        raise errors.SandboxError(f"setup broke (call {FlakySetupBenchmark.calls})")


class UnwritableResultHarness(NopHarness):
    """Does nothing, but first puts a non-empty directory where the attempt's ``result.json`` goes (the file can
    then not be written: a stand-in for a full or read-only disk that root cannot simulate with permissions)."""

    async def run(self, task, env, model, ctx) -> AgentResult:
        (ctx.attempt_dir / "result.json" / "in-the-way").mkdir(parents=True)
        return await super().run(task, env, model, ctx)
