"""One attempt: open -> setup -> agent -> checkpoint -> verify -> collect -> close -> result.json.

:meth:`_Attempt.admitted` reads as that sequence: each phase (:mod:`.phases`, :mod:`.agent_phase`) takes what it
needs and returns a typed result, which the attempt records in its outcome. Its limits are resolved once
(:func:`~.timeouts.attempt_timeouts`), its failures typed in one place (:mod:`.failures`), and the request's
services take part through one generic hook (:class:`~.services.AttemptServices`).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from agentcompass.interfaces import (
    ENV_MOUNTS,
    GRADE_WITHOUT_ENV,
    GRADING_ENV_SPEC,
    NEEDS_ENVIRONMENT,
    SET_ATTEMPT_COST_LIMIT,
    SET_ATTEMPT_LIMITS,
    AgentResult,
    AttemptContext,
    AttemptStatus,
    Benchmark,
    EnvSpec,
    Grade,
    Task,
    Usage,
)

from ..record import (
    AttemptOutcome,
    AttemptRecord,
    UsageRecord,
    agent_from_dict,
    agent_to_dict,
    new_outcome,
    record_write_error,
    usage_record,
    work_s,
)
from . import resources
from .agent_phase import run_agent
from .budget import with_roles
from .failures import FailureRecord, classify_failure, grade_failure, stops_request
from .frame import AttemptFrame
from .phases import AgentPhase, Environments, Phases, Verified
from .progress import AttemptStarted
from .roles import AttemptRoles
from .runtime import RequestRuntime
from .services import AttemptServices
from .timeouts import attempt_timeouts

__all__ = ["AttemptOutcome", "agent_from_dict", "load_checkpoint", "run_attempt"]


class _Attempt(AttemptFrame):
    """An attempt run in this process. It exists from the moment it holds its slot (:meth:`AttemptFrame.run`): its
    directory is made then, ``duration_s`` counts from then, and the wait before it is ``queue_s`` (a cancelled
    wait leaves nothing on disk)."""

    def __init__(self, rt: RequestRuntime, task: Task, n: int, checkpoint: AgentResult | None, sample: int = 1) -> None:
        self.n, self.checkpoint, self.sample = n, checkpoint, sample
        self.task, timeouts = attempt_timeouts(task, rt.config)
        self.record = rt.store.attempt(task.id, n, sample)
        super().__init__(rt, new_outcome(task.id, n, sample, self.record, checkpoint is not None), id(self))
        self.failures = FailureRecord(self.out, self.record, rt.logger)
        self.envs = Environments()
        self.ctx = AttemptContext(
            task=self.task,
            attempt=n,
            attempt_dir=self.record.dir,
            benchmark=rt.benchmark,
            time_limit_s=timeouts.agent,
            logger=rt.logger,
            emit=self._emit_custom,
            auto_install_dependencies=rt.config.runtime.auto_install_dependencies,
            sample=sample,
        )
        self.phases = Phases(rt, self.task, self.ctx, timeouts, sample)
        self.model = rt.model.fork(self.ctx) if rt.model is not None else None
        self.roles = AttemptRoles(rt.roles, self.ctx)
        self.ctx.model_role = self.roles
        _limit_cost(rt, self.model)
        _limit_calls(rt, self.model)
        self.services = AttemptServices.of(rt.services, self.ctx, self.model, f"{task.id}/attempt-{n}", rt.config)

    def _emit_custom(self, kind: str, data: dict[str, Any]) -> None:
        self.rt.logger.debug("%s %s: %s %s", self.rt.name, self.task.id, kind, data)

    async def admitted(self, start: float) -> None:
        """Run in this process, from its slot (:class:`~.frame.AttemptFrame`): file-system work runs in the store's
        writer thread (a slow disk must not stall every other attempt); the directory and the checkpoint are
        waited for, the others queued in order. A record that cannot be opened stops the request."""
        await self._write(self._open_record)
        self.rt.progress.emit(AttemptStarted(self.rt.name, self.task.id, self.n, sample=self.sample))
        try:
            try:
                await self._body(self.out)
            finally:
                self.services.close()
                await self._close(self.out)
        except Exception as exc:
            self._fail(classify_failure(exc, self.envs.current(), self.phases.current))
        self._finish(self.out, start)

    def cancelled(self, start: float) -> None:
        self._fail(asyncio.CancelledError("attempt cancelled"))
        self._finish(self.out, start)

    def live_usage(self) -> Usage | None:
        return self.model.usage if self.model is not None else None

    def spent(self) -> UsageRecord:
        return with_roles(self.out.usage, self.out.usage_by_role)

    async def _body(self, out: AttemptOutcome) -> None:
        """The phases in sequence: open and setup (unless a fresh grading environment makes the agent's
        unneeded), agent (or its checkpoint), checkpoint, then verify and collect (:meth:`_verify_fresh`
        without the agent's environment)."""
        rt, task, p, fresh = self.rt, self.task, self.phases, _grading_env_spec(self.rt.benchmark, self.task)
        env = None
        if fresh is None or (self.checkpoint is None and NEEDS_ENVIRONMENT.of(rt.harness)):
            env = await p.open(self._agent_spec(), self.envs)
            out.environment = env.describe()
            await p.setup(env)
        agent = await self._agent(env)
        await self._checkpoint(out, agent)
        if self.checkpoint is None and env is not None:
            await rt.hook("after_agent", env, self.ctx)
        graded = _grade_without_env(rt.benchmark, task, agent.result, self.ctx)
        if fresh is not None or graded is not None:
            return await self._verify_fresh(out, agent, fresh, graded)
        assert env is not None
        if self.checkpoint is None and rt.config.execution.end_agent_processes:
            ended = await p.end_processes(env)
            if ended is not None:
                out.environment = {**out.environment, "agent_processes_ended": ended.commands}
        self._apply_grade(out, await p.verify(env, agent.result), agent)
        if rt.config.execution.artifacts.save:
            out.artifacts = await p.collect(env, self.record.artifacts_dir)

    def _agent_spec(self) -> EnvSpec:
        rt, task = self.rt, self.task
        spec = rt.benchmark.env_spec(task)
        spec.labels.update(rt.labels(task.id))
        spec.keep = rt.config.execution.keep_environment
        mounts = ENV_MOUNTS.of(rt.harness)
        if mounts is not None:
            spec.mounts.extend(mounts(task))
        return spec

    async def _agent(self, env: Any) -> AgentPhase:
        """The agent phase (between the recipes' ``before_agent`` hooks and ``after_agent``), or the checkpoint
        of an earlier attempt whose agent phase finished; an error it is verified after is recorded here."""
        if self.checkpoint is not None:
            return AgentPhase(self.checkpoint)
        if env is not None:
            await self.rt.hook("before_agent", env, self.ctx)
        agent = await run_agent(self.phases, env, self.model, self.services)
        if agent.error is not None:
            self._fail(agent.error)
        return agent

    async def _checkpoint(self, out: AttemptOutcome, agent: AgentPhase) -> None:
        """The agent's result in the outcome, and on disk before verification starts (unless it failed)."""
        out.agent = agent_to_dict(agent.result)
        out.usage = usage_record(agent.result.usage)
        if agent.after_error is None:  # a failed agent phase is no checkpoint to resume from
            await self._write(self.record.write_checkpoint, out.agent)

    async def _verify_fresh(
        self, out: AttemptOutcome, agent: AgentPhase, spec: EnvSpec | None, grade: Grade | None
    ) -> None:
        """Grade without the agent's environment (:class:`~agentcompass.interfaces.FreshGrading`): its artifacts
        are saved and it is closed first; then ``grade`` (one that needed no environment) stands, or a new
        environment opens from ``spec`` (same provider, same slot, ``env_open_qps``), closed by :meth:`_close`."""
        rt, p, envs = self.rt, self.phases, self.envs
        if envs.agent is not None:
            if rt.config.execution.artifacts.save:
                out.artifacts = await p.collect(envs.agent, self.record.artifacts_dir)
            env, envs.agent = envs.agent, None
            await p.close(env, "close")
        if grade is not None:
            return self._apply_grade(out, Verified(grade, None), agent)
        assert spec is not None
        spec.labels.update({**rt.labels(self.task.id), "agentcompass.role": "grading"})
        spec.keep = rt.config.execution.keep_environment
        grading = await p.open(spec, envs, "grading", "grading_env_open")
        out.environment = {**out.environment, "grading": grading.describe()}
        await rt.hook("after_open", grading, self.ctx)
        self._apply_grade(out, await p.verify(grading, agent.result), agent)

    def _apply_grade(self, out: AttemptOutcome, verified: Verified, agent: AgentPhase) -> None:
        grade = verified.grade
        out.reward, out.rewards, out.resolved = grade.reward, dict(grade.rewards), grade.resolved
        out.grade = {"error": grade.error, "details": grade.details}
        out.reward_valid = grade.reward is not None
        if grade.log:
            self.record.write_verifier_log(grade.log)
        policy = agent.after_error
        if policy is not None:  # verified after an agent-phase error, which stays the recorded one
            out.grade.update({"after_error": True, "reward_counts": policy.reward_counts, "reward": grade.reward})
            if not (policy.reward_counts and out.reward_valid):
                out.reward, out.resolved, out.reward_valid = None, False, False
            return
        env = self.envs.current()
        failure = grade_failure(grade, env)
        if failure is not None:
            self._fail(classify_failure(failure, env, self.phases.current))

    async def _close(self, out: AttemptOutcome) -> None:
        """Close the attempt's environments (the grading one first), each after noting the memory kills in it
        (recorded even when the attempt succeeded despite them)."""
        for env, phase in ((self.envs.grading, "grading_close"), (self.envs.agent, "close")):
            if env is not None:
                oom = resources.out_of_memory(env)
                if oom is not None:
                    out.environment = {**(out.environment or {}), "out_of_memory": oom}
                await self.phases.close(env, phase)

    def _fail(self, exc: BaseException) -> None:
        """Record the failure ``exc`` (classified); one that stops the request stops it."""
        self.failures.add(exc)
        if stops_request(exc):
            self.rt.stopped = exc

    def _open_record(self) -> None:
        """The attempt's directory, in the writer thread after every earlier write: none of them may have failed
        (what this attempt did could not be kept either)."""
        failed = self.rt.store.writer.failed
        if failed is not None:
            raise record_write_error(self.rt.store, failed)
        self.record.mkdir()

    async def _write(self, fn: Any, *args: Any) -> None:
        """A write of the record, waited for; its failure is a RecordWriteError (the request stops)."""
        try:
            await self.rt.store.writer.now(fn, *args)
        except OSError as exc:
            raise record_write_error(self.rt.store, exc) from exc

    def _finish(self, out: AttemptOutcome, start: float) -> None:
        """Complete the outcome and queue its ``result.json`` (written after the checkpoint, before the run's
        line of this sample)."""
        out.duration_s = round(time.monotonic() - start, 4)
        out.phases = dict(self.phases.timings)
        if not out.usage and self.model is not None:
            out.usage = usage_record(self.model.usage)
        out.usage_by_role = self.roles.usage()
        self.rt.store.writer.later(self.write_result, self.record, out.record())
        self.rt.store.writer.attempt_took(work_s(out.phases))


def _limit_cost(rt: RequestRuntime, model: Any) -> None:
    """``execution.attempt_cost_limit_usd`` on the attempt's model client (checked when the request was prepared)."""
    limit = rt.config.execution.attempt_cost_limit_usd
    if limit is not None and model is not None:
        SET_ATTEMPT_COST_LIMIT.of(model)(limit)


def _limit_calls(rt: RequestRuntime, model: Any) -> None:
    """``execution.attempt_max_model_calls`` / ``attempt_max_tokens_total`` on the attempt's model client
    (checked when the request was prepared)."""
    ex = rt.config.execution
    if model is not None and (ex.attempt_max_model_calls is not None or ex.attempt_max_tokens_total is not None):
        SET_ATTEMPT_LIMITS.of(model)(ex.attempt_max_model_calls, ex.attempt_max_tokens_total)


def _grading_env_spec(benchmark: Benchmark, task: Task) -> EnvSpec | None:
    """The benchmark's fresh grading environment (optional capability; None: grade in the agent's)."""
    method = GRADING_ENV_SPEC.of(benchmark)
    return method(task) if method is not None else None


def _grade_without_env(benchmark: Benchmark, task: Task, agent: AgentResult, ctx: AttemptContext) -> Grade | None:
    """The grade that needs no environment (optional capability; None: grade normally)."""
    method = GRADE_WITHOUT_ENV.of(benchmark)
    return method(task, agent, ctx) if method is not None else None


async def run_attempt(
    rt: RequestRuntime,
    task: Task,
    n: int,
    checkpoint: AgentResult | None = None,
    sample: int = 1,
    due: float | None = None,
) -> AttemptOutcome:
    """Attempt ``n`` of sample ``sample`` of ``task``, due since ``due`` (``time.monotonic``: its ``queue_s``
    counts from then; now when None), here or on the request's executor (``executor: ray``); its result is on
    disk. An error that stops the request (``stops_request``, e.g. a dead model endpoint) is kept in
    ``rt.stopped``: no attempt starts after it."""
    make = rt.executor.attempt if rt.executor is not None else _Attempt
    return await make(rt, task, n, checkpoint, sample).run(due)


def load_checkpoint(record: AttemptRecord) -> AgentResult | None:
    """The agent result of an attempt whose agent phase finished but whose verification did not."""
    checkpoint = record.read_checkpoint()
    if checkpoint is None:
        return None
    result = record.read_result()
    if result is not None and result.get("status") == AttemptStatus.COMPLETED:
        return None
    return agent_from_dict(checkpoint)
