"""The phases of one attempt, each taking what it needs and returning a typed result: open (an environment),
setup, agent (:class:`AgentPhase`), end_processes, verify (:class:`Verified`), collect (the artifacts) and the
close of one environment. :mod:`.attempt` runs them in sequence and records what they return.

Each phase is timed into ``timings`` (an attempt's ``phases`` in ``result.json``) and announced as a
:class:`~.progress.PhaseChanged` event; its limit comes from the attempt's :class:`~.timeouts.AttemptTimeouts`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, TypeVar

from agentcompass.errors import AfterError, one_line
from agentcompass.interfaces import END_PROCESSES, AgentResult, AttemptContext, Environment, Grade, Task

from .progress import PhaseChanged
from .runtime import RequestRuntime
from .timeouts import AttemptTimeouts

__all__ = ["AgentPhase", "Ended", "Environments", "Phases", "Verified"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class AgentPhase:
    """The agent phase's result; ``error`` (classified) and ``after_error`` (its policy) when the phase failed and
    the benchmark's policy verifies anyway: a failed agent phase is no checkpoint to resume from."""

    result: AgentResult
    error: BaseException | None = None
    after_error: AfterError | None = None


@dataclass(frozen=True, slots=True)
class Verified:
    """The benchmark's grade and the environment it was graded in (None: graded without one)."""

    grade: Grade
    env_used: Environment | None


@dataclass(frozen=True, slots=True)
class Ended:
    """The agent's processes ended before verification: their command lines, as the environment reports them."""

    commands: Any


@dataclass(slots=True)
class Environments:
    """The attempt's open environments, each closed when the attempt ends however it ends (a cancel mid-open
    included): the agent's (``agent``) and a fresh one for grading (``grading``, FreshGrading)."""

    agent: Environment | None = None
    grading: Environment | None = None

    def current(self) -> Environment | None:
        """The environment the attempt works in now (whose out-of-memory kills name its failures)."""
        return self.grading or self.agent


class Phases:
    """The timed phases of one attempt of ``rt``'s request (task ``task``, context ``ctx``)."""

    __slots__ = ("ctx", "current", "rt", "sample", "task", "timeouts", "timings")

    def __init__(
        self, rt: RequestRuntime, task: Task, ctx: AttemptContext, timeouts: AttemptTimeouts, sample: int
    ) -> None:
        self.rt, self.task, self.ctx, self.timeouts, self.sample = rt, task, ctx, timeouts, sample
        self.timings: dict[str, float] = {}
        self.current: str | None = None

    def enter(self, name: str) -> None:
        self.current = name
        self.rt.progress.emit(
            PhaseChanged(self.rt.name, self.task.id, self.ctx.attempt, phase=name, sample=self.sample)
        )

    def took(self, name: str, start: float) -> None:
        self.timings[name] = round(time.monotonic() - start, 4)

    async def timed(self, name: str, work: Awaitable[T], timeout: float | None) -> T:
        self.enter(name)
        start = time.monotonic()
        try:
            if timeout is None:
                return await work
            async with asyncio.timeout(timeout):
                return await work
        finally:
            self.took(name, start)

    async def open(self, spec: Any, envs: Environments, slot: str = "agent", phase: str = "env_open") -> Environment:
        """Open an environment into ``envs.<slot>``. Cancelled mid-open, the open still completes (within the
        close timeout) so that what it created is closed with the attempt instead of leaking; timed out, it is
        cancelled."""
        await self.rt.pool.before_open(self.rt.provider.name)
        opening = asyncio.ensure_future(self.rt.provider.open(spec))
        try:
            env = await self.timed(phase, asyncio.shield(opening), self.timeouts.env_open)
        except asyncio.CancelledError:
            if not opening.done():
                await asyncio.wait({opening}, timeout=self.timeouts.close)
            if opening.done() and not opening.cancelled() and opening.exception() is None:
                setattr(envs, slot, opening.result())
            else:
                opening.cancel()
            raise
        except BaseException:
            opening.cancel()
            raise
        setattr(envs, slot, env)
        return env

    async def setup(self, env: Environment) -> None:
        await self.timed("setup", self._setup(env), self.timeouts.setup)

    async def _setup(self, env: Environment) -> None:
        await self.rt.hook("after_open", env, self.ctx)
        await self.rt.benchmark.setup(self.task, env, self.ctx)
        items = self.rt.config.execution.artifacts.prepare
        if items:
            from ..record import prepare_artifacts

            await prepare_artifacts(env, [i.model_dump() for i in items])

    async def end_processes(self, env: Environment) -> Ended | None:
        """Hardening (``execution.end_agent_processes``): no process of the agent runs into verification (None,
        and no phase: the environment cannot end them)."""
        end = END_PROCESSES.of(env)
        if end is None:
            return None
        return Ended(await self.timed("end_processes", end(), self.timeouts.setup))

    async def verify(self, env: Environment, agent: AgentResult) -> Verified:
        """The benchmark's grade of ``agent`` in ``env``, after the recipes' ``before_verify`` hooks."""
        await self.rt.hook("before_verify", env, self.ctx)
        grade = await self.timed(
            "verify", self.rt.benchmark.grade(self.task, env, agent, self.ctx), self.timeouts.verify
        )
        return Verified(grade, env)

    async def collect(self, env: Environment, artifacts_dir: Any) -> Any:
        """The manifest of the artifacts saved from ``env`` (``execution.artifacts``) into ``artifacts_dir``."""
        from ..record import save_artifacts

        a = self.rt.config.execution.artifacts
        saving = save_artifacts(
            env,
            a.save,
            artifacts_dir,
            max_files=a.max_files,
            max_file_bytes=a.max_file_bytes,
            max_total_bytes=a.max_total_bytes,
        )
        return await self.timed("artifacts", saving, self.timeouts.setup)

    async def close(self, env: Environment, phase: str) -> None:
        """Close ``env`` within the close timeout; a failed or slow close is logged, the outcome stands."""
        start, limit = time.monotonic(), self.timeouts.close
        closing = asyncio.ensure_future(env.close())
        try:
            await asyncio.wait_for(asyncio.shield(closing), limit)
        except asyncio.CancelledError:  # cancelled (again) while closing: still finish, within the limit
            await asyncio.wait({closing}, timeout=limit)
            raise
        except Exception as exc:
            self.rt.logger.warning("closing environment of %s failed: %s", self.task.id, one_line(exc))
        finally:
            self.took(phase, start)
