"""``CoinHarness``: solves a task with a known probability, by a seeded draw per (task, sample).

Sample ``j`` of task ``t`` runs the benchmark's reference solution (as the ``oracle`` harness does) when
``draw(seed, t, j) < p`` (``p`` from ``per_task`` or ``pass_probability``), and does nothing otherwise. The draw
depends on the seed, the task and the sample only, so a retry or a reused run repeats it and the expected
pass@k of a run is known in advance. ``fail_samples`` makes the first attempt of those samples fail with a
retryable :class:`~agentcompass.errors.SandboxError` (to check that a retry is not a sample); ``calls_log``
appends one line per call (``task sample attempt pid time workspace``, and ``... cancelled`` when cancelled)
to a file, to see which attempts a run made; ``agent.info`` records the wall-clock ``started`` / ``ended``.

Select it over the oracle: ``harness=oracle harness._target_=agentcompass.testing.coin_harness.CoinHarness
+harness.pass_probability=0.5 +harness.seed=7``.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import time
from typing import Any, ClassVar

from pydantic import Field

from agentcompass.errors import SandboxError
from agentcompass.harnesses.oracle import OracleConfig, OracleHarness
from agentcompass.interfaces import AgentResult, AttemptContext, ComponentContext, Environment, ModelClient, Task


class CoinConfig(OracleConfig):
    pass_probability: float = Field(0.5, ge=0, le=1, description="probability of solving a task")
    per_task: dict[str, float] = Field(default_factory=dict, description="task id -> its own probability")
    seed: int = Field(0, description="seed of the draws")
    fail_samples: list[int] = Field(default_factory=list, description="samples whose first attempt fails")
    sleep_s: float = Field(0.0, ge=0, description="time spent before acting")
    calls_log: str | None = Field(None, description="append 'task sample attempt pid time' per call to this file")


def draw(seed: int, task_id: str, sample: int) -> float:
    """A number in [0, 1) fixed by (seed, task, sample)."""
    digest = hashlib.sha256(f"{seed}:{task_id}:{sample}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class CoinHarness(OracleHarness):
    requires_model: ClassVar[bool] = False
    config_class = CoinConfig

    def __init__(self, config: CoinConfig, ctx: ComponentContext) -> None:
        super().__init__(config, ctx)
        self.config: CoinConfig = config

    def solves(self, task_id: str, sample: int) -> bool:
        p = self.config.per_task.get(task_id, self.config.pass_probability)
        return draw(self.config.seed, task_id, sample) < p

    def _log(self, *fields: Any) -> None:
        if self.config.calls_log:
            with open(self.config.calls_log, "a", encoding="utf-8") as fh:
                fh.write(" ".join(str(f) for f in fields) + "\n")

    async def run(self, task: Task, env: Environment, model: ModelClient | None, ctx: AttemptContext) -> AgentResult:
        started = time.time()
        where = (env.describe() or {}).get("workspace") or (env.describe() or {}).get("container") or "-"
        self._log(task.id, ctx.sample, ctx.attempt, os.getpid(), f"{started:.3f}", where)
        try:
            if self.config.sleep_s:
                await asyncio.sleep(self.config.sleep_s)
        except asyncio.CancelledError:
            self._log(task.id, ctx.sample, ctx.attempt, os.getpid(), f"{time.time():.3f}", "cancelled")
            raise
        if ctx.sample in self.config.fail_samples and ctx.attempt == 1:
            raise SandboxError(f"injected failure of sample {ctx.sample}, attempt 1")
        if self.solves(task.id, ctx.sample):
            result = await super().run(task, env, model, ctx)
        else:
            result = AgentResult(exit_status="completed", submission="", n_turns=0, info={"coin": "skipped"})
        result.info.update(started=started, ended=time.time())
        return result
