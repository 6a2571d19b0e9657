"""One attempt: open -> prepare -> agent -> checkpoint -> verify -> artifacts -> close -> result.json."""

from __future__ import annotations

import asyncio
import copy
import time
from dataclasses import replace
from typing import Any

from agentcompass.conversation import CONVERSATION
from agentcompass.errors import (
    AfterError,
    AgentCompassError,
    AgentError,
    AttemptLimitReached,
    VerifierError,
    after_error,
    one_line,
    storage_error,
)
from agentcompass.interfaces import (
    END_PROCESSES,
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
    Environment,
    EnvSpec,
    ExitStatus,
    Grade,
    Task,
    Usage,
    error_policy,
)

from ..record import (
    AttemptOutcome,
    AttemptRecord,
    agent_from_dict,
    agent_to_dict,
    new_outcome,
    record_failure,
    record_write_error,
    usage_record,
    work_s,
)
from . import resources
from .budget import with_roles
from .frame import AttemptFrame
from .gateway import AttemptGateway, attempt_gateway
from .progress import AttemptStarted, PhaseChanged
from .roles import AttemptRoles
from .runtime import RequestRuntime

__all__ = ["AttemptOutcome", "agent_from_dict", "load_checkpoint", "run_attempt"]

SETUP_TIMEOUT_S = 900.0
VERIFY_WATCHDOG_MARGIN_S = 120.0


class _Attempt(AttemptFrame):
    """An attempt run in this process. It exists from the moment it holds its slot (:meth:`AttemptFrame.run`): its
    directory is made then, ``duration_s`` counts from then, and the wait before it is ``queue_s`` (a cancelled
    wait leaves nothing on disk)."""

    def __init__(self, rt: RequestRuntime, task: Task, n: int, checkpoint: AgentResult | None, sample: int = 1) -> None:
        self.n, self.checkpoint, self.sample = n, checkpoint, sample
        self.task = _with_overrides(task, rt)
        self.record = rt.store.attempt(task.id, n, sample)
        super().__init__(rt, new_outcome(task.id, n, sample, self.record, checkpoint is not None), id(self))
        self.dir = self.record.dir
        self.phases: dict[str, float] = {}
        self.env: Environment | None = None
        self.grading_env: Environment | None = None  # FreshGrading: the environment verification runs in
        self.after_error: AfterError | None = None  # set when the agent phase failed and is verified anyway
        self.current_phase: str | None = None
        self.ctx = AttemptContext(
            task=self.task,
            attempt=n,
            attempt_dir=self.dir,
            benchmark=rt.benchmark,
            time_limit_s=self.task.agent_timeout_s,
            logger=rt.logger,
            emit=self._emit_custom,
            auto_install_dependencies=rt.config.runtime.auto_install_dependencies,
            sample=sample,
        )
        self.model = rt.model.fork(self.ctx) if rt.model is not None else None
        self.roles = AttemptRoles(rt.roles, self.ctx)
        self.ctx.model_role = self.roles
        _limit_cost(rt, self.model)
        _limit_calls(rt, self.model)
        self.gateway: AttemptGateway | None = attempt_gateway(
            rt.services, self.model, f"{task.id}/attempt-{n}", rt.config, self.ctx
        )
        if self.gateway is not None:
            self.ctx.gateway = self.gateway.endpoint

    def _emit_custom(self, kind: str, data: dict[str, Any]) -> None:
        self.rt.logger.debug("%s %s: %s %s", self.rt.name, self.task.id, kind, data)

    def _phase(self, name: str) -> None:
        self.current_phase = name
        self.rt.progress.emit(PhaseChanged(self.rt.name, self.task.id, self.n, phase=name, sample=self.sample))

    async def _timed(self, name: str, coro: Any, timeout: float | None) -> Any:
        self._phase(name)
        start = time.monotonic()
        try:
            async with asyncio.timeout(timeout):
                return await coro
        finally:
            self.phases[name] = round(time.monotonic() - start, 4)

    async def admitted(self, start: float) -> None:
        """Run in this process, from its slot (:class:`~.frame.AttemptFrame`): file-system work runs in the store's
        writer thread (a slow disk must not stall every other attempt); the directory and the checkpoint are
        waited for, the others queued in order. A record that cannot be opened stops the request."""
        out = self.out
        await self._write(self._open_record)
        self.rt.progress.emit(AttemptStarted(self.rt.name, self.task.id, self.n, sample=self.sample))
        try:
            try:
                await self._body(out)
            finally:
                if self.gateway is not None:
                    self.gateway.close()
                await self._close(out)
        except Exception as exc:
            self._fail(out, exc)
        self._finish(out, start)

    def cancelled(self, start: float) -> None:
        self._fail(self.out, asyncio.CancelledError("attempt cancelled"))
        self._finish(self.out, start)

    def live_usage(self) -> Usage | None:
        return self.model.usage if self.model is not None else None

    def spent(self) -> dict[str, Any]:
        return with_roles(self.out.usage, self.out.usage_by_role)

    async def _body(self, out: AttemptOutcome) -> None:
        rt, task = self.rt, self.task
        fresh = _grading_env_spec(rt.benchmark, task)
        if fresh is None or (self.checkpoint is None and NEEDS_ENVIRONMENT.of(rt.harness)):
            spec = rt.benchmark.env_spec(task)
            spec.labels.update(rt.labels(task.id))
            spec.keep = rt.config.execution.keep_environment
            mounts = ENV_MOUNTS.of(rt.harness)
            if mounts is not None:
                spec.mounts.extend(mounts(task))
            await rt.pool.before_open(rt.provider.name)
            await self._open(spec)
            out.environment = self.env.describe()
            await self._timed("setup", self._setup(), SETUP_TIMEOUT_S)
        if self.checkpoint is None and self.env is not None:
            await rt.hook("before_agent", self.env, self.ctx)
        agent = self.checkpoint or await self._agent_or_error(out)
        out.agent = agent_to_dict(agent)
        out.usage = usage_record(agent.usage)
        if self.after_error is None:  # a failed agent phase is no checkpoint to resume from
            await self._write(self.record.write_checkpoint, out.agent)  # on disk before verification starts
        if self.checkpoint is None and self.env is not None:
            await rt.hook("after_agent", self.env, self.ctx)
        graded = _grade_without_env(rt.benchmark, task, agent, self.ctx)
        if fresh is not None or graded is not None:
            return await self._verify_fresh(out, agent, fresh, graded)
        if self.checkpoint is None and rt.config.execution.end_agent_processes:
            await self._timed("end_processes", self._end_agent_processes(out), SETUP_TIMEOUT_S)
        await rt.hook("before_verify", self.env, self.ctx)
        grade = await self._timed("verify", rt.benchmark.grade(task, self.env, agent, self.ctx), _verify_watchdog(task))
        self._apply_grade(out, grade)
        if rt.config.execution.artifacts.save:
            out.artifacts = await self._timed("artifacts", self._save_artifacts(), SETUP_TIMEOUT_S)

    async def _end_agent_processes(self, out: AttemptOutcome) -> None:
        """Hardening (``execution.end_agent_processes``): no process of the agent runs into verification; the
        command lines ended go into the attempt's ``environment.agent_processes_ended``."""
        end = END_PROCESSES.of(self.env)
        if end is not None:
            ended = await end()
            out.environment = {**out.environment, "agent_processes_ended": ended}

    async def _verify_fresh(
        self, out: AttemptOutcome, agent: AgentResult, spec: EnvSpec | None, grade: Grade | None
    ) -> None:
        """Grade without the agent's environment (:class:`~agentcompass.interfaces.FreshGrading`): its artifacts
        are saved and it is closed first; then ``grade`` (one that needed no environment) stands, or a new
        environment opens from ``spec`` (same provider, same slot, ``env_open_qps``), closed by :meth:`_close`."""
        rt, task = self.rt, self.task
        if self.env is not None:
            if rt.config.execution.artifacts.save:
                out.artifacts = await self._timed("artifacts", self._save_artifacts(), SETUP_TIMEOUT_S)
            env, self.env = self.env, None
            await self._close_env(env, "close")
        if grade is None:
            spec.labels.update({**rt.labels(task.id), "agentcompass.role": "grading"})
            spec.keep = rt.config.execution.keep_environment
            await rt.pool.before_open(rt.provider.name)
            await self._open(spec, "grading_env", "grading_env_open")
            out.environment = {**out.environment, "grading": self.grading_env.describe()}
            await rt.hook("after_open", self.grading_env, self.ctx)
            await rt.hook("before_verify", self.grading_env, self.ctx)
            grade = await self._timed(
                "verify", rt.benchmark.grade(task, self.grading_env, agent, self.ctx), _verify_watchdog(task)
            )
        self._apply_grade(out, grade)

    async def _open(self, spec: Any, attr: str = "env", phase: str = "env_open") -> None:
        """Open an environment into ``self.<attr>``. Cancelled mid-open, the open still completes (within the close
        timeout) so that what it created is closed by :meth:`run` instead of leaking; timed out, it is cancelled."""
        timeouts = self.rt.config.execution.timeouts
        opening = asyncio.ensure_future(self.rt.provider.open(spec))
        try:
            setattr(self, attr, await self._timed(phase, asyncio.shield(opening), timeouts.env_open))
        except asyncio.CancelledError:
            if not opening.done():
                await asyncio.wait({opening}, timeout=timeouts.close)
            if opening.done() and not opening.cancelled() and opening.exception() is None:
                setattr(self, attr, opening.result())
            else:
                opening.cancel()
            raise
        except BaseException:
            opening.cancel()
            raise

    async def _setup(self) -> None:
        await self.rt.hook("after_open", self.env, self.ctx)
        await self.rt.benchmark.setup(self.task, self.env, self.ctx)
        items = self.rt.config.execution.artifacts.prepare
        if items:
            from ..record import prepare_artifacts

            await prepare_artifacts(self.env, [i.model_dump() for i in items])

    async def _agent(self) -> AgentResult:
        self._phase("agent")
        start = time.monotonic()
        try:
            async with asyncio.timeout(self.task.agent_timeout_s) as cm:
                await self._converse()
                result = await self.rt.harness.run(self.task, self.env, self.model, self.ctx)
        except TimeoutError:
            if not cm.expired():
                raise
            result = AgentResult(exit_status=ExitStatus.AGENT_TIMEOUT, limit_hit="agent_timeout")
        except AttemptLimitReached as exc:  # a limit (calls, tokens, cost), not an error: verified as usual
            self.rt.logger.info("%s: %s", self.task.id, exc)
            result = AgentResult(exit_status=ExitStatus.LIMITS_EXCEEDED, limit_hit=exc.limit, info={"limit": str(exc)})
        except Exception as exc:
            self._raise_fatal()  # an agent failing on a dead endpoint fails because of it
            result = self._stopped_by_limit(exc)  # an agent program exiting after the gateway refused its call
        finally:
            self.phases["agent"] = round(time.monotonic() - start, 4)
        self._raise_fatal()
        refused = self.gateway.limit_hit if self.gateway is not None else None
        if refused is not None and result.exit_status != ExitStatus.LIMITS_EXCEEDED:  # a gateway limit: not an error
            result = replace(result, exit_status=ExitStatus.LIMITS_EXCEEDED, limit_hit=refused)
        if self.model is not None:
            result.usage = copy.copy(self.model.usage)
        if self.ctx.conversation is not None and result.transcript is None:
            result.transcript = self.ctx.conversation.transcript
        return result

    async def _converse(self) -> None:
        """A tool-use benchmark's conversation for this attempt (``ctx.conversation``), made before the agent runs."""
        make = CONVERSATION.of(self.rt.benchmark)
        if make is not None and self.ctx.conversation is None:
            self.ctx.conversation = await make(self.task, self.env, self.ctx)

    def _stopped_by_limit(self, exc: Exception) -> AgentResult:
        """The agent phase's result when the harness failed after the gateway refused a call of the attempt at a
        per-attempt limit (the limit stopped it: ``limits_exceeded``); any other failure is raised again."""
        refused = self.gateway.limit_hit if self.gateway is not None else None
        if refused is None or (isinstance(exc, AgentCompassError) and exc.stops_request):
            raise exc
        self.rt.logger.info(
            "%s: the agent stopped after a call was refused at a limit (%s): %s", self.task.id, refused, one_line(exc)
        )
        partial = exc.result if isinstance(exc, AgentError) else None
        info = {
            **(partial.info if isinstance(partial, AgentResult) else {}),
            "limit": refused,
            "agent_error": one_line(exc),
        }
        if isinstance(partial, AgentResult):
            return replace(partial, exit_status=ExitStatus.LIMITS_EXCEEDED, limit_hit=refused, info=info)
        return AgentResult(exit_status=ExitStatus.LIMITS_EXCEEDED, limit_hit=refused, info=info)

    def _raise_fatal(self) -> None:
        """The error the gateway met that stops the request (a dead endpoint), if it met one."""
        if self.gateway is not None and self.gateway.fatal is not None:
            raise self.gateway.fatal

    async def _agent_or_error(self, out: AttemptOutcome) -> AgentResult:
        """The agent phase. An error after which the benchmark's policy verifies is recorded and the attempt
        goes on to the verifier (``self.after_error``); any other error ends the attempt."""
        try:
            return await self._agent()
        except Exception as failure:
            exc = resources.typed(failure, self.env, "agent")
            policy = after_error(error_policy(self.rt.benchmark), exc, "agent")
            if not policy.verify or (isinstance(exc, AgentCompassError) and exc.stops_request):
                if exc is failure:
                    raise
                raise exc from failure
            self._fail(out, exc)
            self.after_error = policy
            usage = copy.copy(self.model.usage) if self.model is not None else Usage()
            return AgentResult(exit_status=ExitStatus.ERROR, usage=usage, info={"error": one_line(exc)})

    async def _save_artifacts(self) -> dict[str, Any]:
        from ..record import save_artifacts

        a = self.rt.config.execution.artifacts
        return await save_artifacts(
            self.env,
            a.save,
            self.record.artifacts_dir,
            max_files=a.max_files,
            max_file_bytes=a.max_file_bytes,
            max_total_bytes=a.max_total_bytes,
        )

    def _apply_grade(self, out: AttemptOutcome, grade: Grade) -> None:
        out.reward, out.rewards, out.resolved = grade.reward, dict(grade.rewards), grade.resolved
        out.grade = {"error": grade.error, "details": grade.details}
        out.reward_valid = grade.reward is not None
        if grade.log:
            self.record.write_verifier_log(grade.log)
        if self.after_error is not None:  # verified after an agent-phase error, which stays the recorded one
            out.grade.update(
                {"after_error": True, "reward_counts": self.after_error.reward_counts, "reward": grade.reward}
            )
            if not (self.after_error.reward_counts and out.reward_valid):
                out.reward, out.resolved, out.reward_valid = None, False, False
            return
        if grade.reward is None:
            message = (grade.error or "the verifier produced no valid reward").removeprefix("VerifierError: ")
            self._fail(out, VerifierError(message))
        elif grade.reward < 1:  # a task that ran out of memory fails for that reason, whatever it scored
            oom = resources.oom_error(self.grading_env or self.env, None, f"the reward is {grade.reward:g}")
            if oom is not None:
                self._fail(out, oom)

    async def _close(self, out: AttemptOutcome) -> None:
        for env, phase in ((self.grading_env, "grading_close"), (self.env, "close")):
            if env is not None:
                oom = resources.out_of_memory(env)
                if oom is not None:  # recorded even when the attempt succeeded despite it
                    out.environment = {**(out.environment or {}), "out_of_memory": oom}
                await self._close_env(env, phase)

    async def _close_env(self, env: Environment, phase: str) -> None:
        start, limit = time.monotonic(), self.rt.config.execution.timeouts.close
        closing = asyncio.ensure_future(env.close())
        try:
            await asyncio.wait_for(asyncio.shield(closing), limit)
        except asyncio.CancelledError:  # cancelled (again) while closing: still finish, within the limit
            await asyncio.wait({closing}, timeout=limit)
            raise
        except Exception as exc:  # a failed or slow close is logged, the outcome stands
            self.rt.logger.warning("closing environment of %s failed: %s", self.task.id, one_line(exc))
        finally:
            self.phases[phase] = round(time.monotonic() - start, 4)

    def _fail(self, out: AttemptOutcome, exc: BaseException) -> None:
        exc = storage_error(exc) or exc  # a full disk anywhere in the attempt stops the request
        exc = resources.typed(exc, self.grading_env or self.env, self.current_phase)
        record_failure(out, exc, self.record, self.rt.logger)
        if isinstance(exc, AgentCompassError) and exc.stops_request:
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
        out.phases = dict(self.phases)
        if not out.usage and self.model is not None:
            out.usage = usage_record(self.model.usage)
        out.usage_by_role = self.roles.usage()
        self.rt.store.writer.later(self.record.write_result, out.record())
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


def _with_overrides(task: Task, rt: RequestRuntime) -> Task:
    t = rt.config.execution.timeouts
    if not t.agent and not t.verifier:
        return task
    return replace(
        task, agent_timeout_s=t.agent or task.agent_timeout_s, verifier_timeout_s=t.verifier or task.verifier_timeout_s
    )


def _grading_env_spec(benchmark: Benchmark, task: Task) -> EnvSpec | None:
    """The benchmark's fresh grading environment (optional capability; None: grade in the agent's)."""
    method = GRADING_ENV_SPEC.of(benchmark)
    return method(task) if method is not None else None


def _grade_without_env(benchmark: Benchmark, task: Task, agent: AgentResult, ctx: AttemptContext) -> Grade | None:
    """The grade that needs no environment (optional capability; None: grade normally)."""
    method = GRADE_WITHOUT_ENV.of(benchmark)
    return method(task, agent, ctx) if method is not None else None


def _verify_watchdog(task: Task) -> float:
    return (task.verifier_timeout_s or 1800.0) * 1.5 + VERIFY_WATCHDOG_MARGIN_S


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
