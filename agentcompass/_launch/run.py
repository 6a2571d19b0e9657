"""The one driver: every request of an orchestration on ONE attempt pool; a failing request never discards the
others. ``run_evaluation`` is an orchestration of one request on this driver, raising from its outcome
(:func:`result_of`).

Per request: prepare (components, tasks, run directory) -> start its request-scoped services -> run its attempts
-> finalize (the record, its status) -> close (services, model client, provider, the run lock), whatever
happened. The driver alone decides a request's status and error (:meth:`_Runner.run_one`, :func:`result_of`).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypedDict

from agentcompass._config import ResolvedRequest, RuntimeConfig
from agentcompass._orchestrator.record import RunResult, console_logging, file_logging
from agentcompass._orchestrator.scheduling import (
    Budget,
    Executor,
    Hooks,
    Pool,
    Progress,
    RequestFinished,
    RequestRun,
    budget_message,
    open_executor,
)
from agentcompass.errors import (
    AgentCompassError,
    BudgetExhaustedError,
    EvaluationFailedError,
    RunTimeoutError,
    StorageError,
    one_line,
)
from agentcompass.interfaces import RunStatus

from .sweep import Job

log = logging.getLogger("agentcompass")


@dataclass
class RequestOutcome:
    """One named request's outcome inside an orchestration."""

    name: str
    status: RunStatus  # completed | failed | timeout | cancelled
    result: RunResult | None = None  # what run_evaluation would have returned
    error: str | None = None  # "<ErrorType>: <message>"
    paths: dict[str, str] = field(default_factory=dict)
    exception: BaseException | None = field(default=None, repr=False, compare=False)  # what ``error`` names


class PoolUse(TypedDict, total=False):
    """How the orchestration's pool of attempt slots was used (empty until it ran)."""

    size: int
    max_running: int
    utilisation: float


@dataclass
class OrchestrationResult:
    status: RunStatus  # completed (every request completed) | failed | timeout | cancelled
    requests: dict[str, RequestOutcome] = field(default_factory=dict)
    name: str = "orchestration"
    duration_s: float = 0.0
    pool: PoolUse = field(default_factory=lambda: PoolUse())


@dataclass
class Orchestration:
    """A resolved orchestration: every request composed and validated, nothing run yet.

    ``runtime`` holds the orchestration-wide settings, resolved when the orchestration is (pool size, limits,
    the overall timeout, progress, log levels, budgets); its request-scoped fields (``reuse``...) are unused.
    """

    name: str
    jobs: list[Job]
    runtime: RuntimeConfig = field(default_factory=RuntimeConfig)

    @property
    def task_concurrency(self) -> int:
        return self.runtime.task_concurrency

    @classmethod
    def single(cls, resolved: ResolvedRequest, name: str = "") -> Orchestration:
        """``run_evaluation``'s request as an orchestration of one (its own pool and settings)."""
        return cls("agentcompass", [Job(name=name, inp=None, resolved=resolved)], resolved.config.runtime)


def orchestration_runtime(jobs: list[Job], explicit: dict[str, Any]) -> RuntimeConfig:
    """The settings of an orchestration of ``jobs``: the values given ``explicit``ly (the spec's ``runtime``,
    ``launch``'s settings), over those its config files give (every request composes the same files, so the first
    composed request's runtime says), over the schema defaults. A bad value is a ConfigError naming its key."""
    from pydantic import ValidationError

    from agentcompass._config import validation_error

    base = next((j.resolved.config.runtime for j in jobs if j.resolved is not None), None)
    values = {**(base.model_dump() if base is not None else {}), **explicit}
    try:
        return RuntimeConfig.model_validate(values)
    except ValidationError as exc:
        raise validation_error(exc, "runtime", sorted(RuntimeConfig.model_fields)) from None


class _Runner:
    def __init__(
        self, orch: Orchestration, hooks: Hooks, on_progress: Callable | None, on_request_finished: Callable | None
    ):
        self.orch, self.hooks, self.on_request_finished = orch, hooks, on_request_finished
        self.pool = Pool(orch.task_concurrency, orch.runtime.provider_limits, orch.runtime.env_open_qps)
        self.progress = Progress(orch.runtime.progress, 0, on_progress, desc=orch.name)
        self.outcomes: dict[int, RequestOutcome] = {}  # job index -> outcome
        self.runs: list[tuple[int, RequestRun]] = []
        self.budget = Budget(
            "orchestration",
            orch.runtime.orchestration_cost_limit_usd,
            orch.runtime.orchestration_token_limit,
        )
        self.executor: Executor | None = None
        self.stopping: RunStatus | None = None  # set before the driver cancels the requests still running

    def _done(self, index: int, outcome: RequestOutcome) -> None:
        self.outcomes[index] = outcome
        if outcome.result is not None:
            self.progress.emit(
                RequestFinished(outcome.name, status=outcome.status, metrics=outcome.result.get("metrics", {}))
            )
        if self.on_request_finished is not None:
            try:
                out = self.on_request_finished(outcome)
                if inspect.isawaitable(out):
                    asyncio.ensure_future(out)
            except Exception as exc:  # a broken callback never kills the orchestration
                log.warning("on_request_finished callback raised %s", one_line(exc))

    def _failed(self, index: int, name: str, exc: BaseException) -> None:
        """A request that failed before any of its attempts ran (nothing of it is recorded)."""
        self._done(index, RequestOutcome(name, RunStatus.FAILED, error=one_line(exc), exception=exc))

    async def prepare(self) -> None:
        """The executor, then every request prepared in order (a failing one is its own outcome)."""
        configs = [job.resolved.config for job in self.orch.jobs if job.error is None and job.resolved is not None]
        self.executor = await open_executor(self.hooks.executor, configs, self.pool, log)
        for index, job in enumerate(self.orch.jobs):
            if job.error is not None or job.resolved is None:
                self._failed(index, job.name, job.error or RuntimeError("the request was not composed"))
                continue
            budgets = [self.budget] if self.budget.active else []
            run = RequestRun(job.resolved, job.name, self.pool, self.progress, self.hooks, self.executor, budgets)
            try:
                await asyncio.to_thread(run.prepare)
            except Exception as exc:
                await run.aclose()
                self._failed(index, run.name, exc)
                continue
            self.runs.append((index, run))
            self.progress.add_total(len(run.pending), run.name)

    async def run_one(self, index: int, run: RequestRun) -> None:
        """Start, execute, finalize and close one request; its outcome is recorded whatever happens."""
        status, error = RunStatus.COMPLETED, None
        try:
            with file_logging(run.log_path, run.cfg.runtime.file_log_level, run.name):
                try:
                    await run.start()
                    await run.execute()
                except asyncio.CancelledError:  # only the driver cancels a request (stop()): it ends here
                    status = self.stopping or RunStatus.CANCELLED
                    _uncancel()
                except Exception as exc:
                    status, error = RunStatus.FAILED, exc
                    stops = isinstance(exc, AgentCompassError) and exc.stops_request
                    (run.logger.debug if stops else log.error)("request %s stopped: %s", run.name, one_line(exc))
                result = await run.afinalize(status)
                error = error or run.storage_error or run.write_error  # the record did not fit / failed
        except Exception as exc:  # the record itself could not be written
            log.error("request %s: its record could not be finalized: %s", run.name, one_line(exc))
            self._failed(index, run.name, exc)
            return
        finally:
            await run.aclose()
        self._record(index, run, result, error)

    def _record(self, index: int, run: RequestRun, result: RunResult, error: BaseException | None) -> None:
        final = result["metadata"]["status"]
        text = one_line(error) if error is not None else None
        if isinstance(error, StorageError):
            text = stopped_by_disk(error, run, result)
        if final == RunStatus.FAILED and error is None:
            text = f"EvaluationFailedError: every task ended in an error ({result['metrics']['n_errors']})"
        elif final in (RunStatus.TIMEOUT, RunStatus.CANCELLED) and error is None:
            text = f"the orchestration {final}"
        outcome = RequestOutcome(run.name, final, result=result, error=text, paths=result["paths"], exception=error)
        self._done(index, outcome)

    async def run_all(self) -> RunStatus:
        """Every prepared request at once, bounded by ``timeout_seconds``; TIMEOUT or COMPLETED."""
        tasks = [asyncio.ensure_future(self.run_one(index, run)) for index, run in self.runs]
        if not tasks:
            return RunStatus.COMPLETED
        try:
            _, pending = await asyncio.wait(tasks, timeout=self.orch.runtime.timeout_seconds)
        except asyncio.CancelledError:
            await self.stop(tasks, RunStatus.CANCELLED)
            raise
        if pending:
            await self.stop(list(pending), RunStatus.TIMEOUT)
            return RunStatus.TIMEOUT
        return RunStatus.COMPLETED

    async def stop(self, tasks: list[asyncio.Future], status: RunStatus) -> None:
        """Cancel the requests still running and wait while they close their environments (each bounds its
        attempts by ``cleanup_grace_seconds``) and finalize their records with ``status``. A second cancel of the
        caller (a second Ctrl-C) cuts this wait short."""
        self.stopping = status
        pending = [t for t in tasks if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            grace = self.orch.runtime.cleanup_grace_seconds
            await asyncio.wait(pending, timeout=grace + 90.0)
        for index, run in self.runs:
            if index not in self.outcomes:  # still winding down after the wait: named, not waited for
                self._done(index, RequestOutcome(run.name, status, error=f"the request did not close after {status}"))


def stopped_by_disk(exc: StorageError, run: RequestRun, result: RunResult) -> str:
    """One line for a request a full disk stopped: the file that did not fit, how much of the run is kept, and
    how to go on."""
    total = run.n_tasks * run.cfg.execution.n_attempts
    return (
        f"{exc}; the run stopped with {run.n_recorded} of {total} samples finished, kept in "
        f"{result['paths']['run_dir']}; free space, then resume with --reuse {result['metadata']['run_id']}"
    )


def _uncancel() -> None:
    """The current task's cancellation was handled: later timeouts inside it work as in a fresh task."""
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()


async def run_orchestration(
    orch: Orchestration,
    *,
    hooks: Hooks,
    on_progress: Callable | None = None,
    on_request_finished: Callable | None = None,
) -> OrchestrationResult:
    start = time.monotonic()
    runner = _Runner(orch, hooks, on_progress, on_request_finished)
    with console_logging(orch.runtime.log_level):
        try:
            await runner.prepare()
            status = await runner.run_all()
        finally:
            runner.progress.close()
            if runner.executor is not None:
                await runner.executor.aclose()
    if status == RunStatus.COMPLETED and any(o.status != RunStatus.COMPLETED for o in runner.outcomes.values()):
        status = RunStatus.FAILED
    ordered = [runner.outcomes[i] for i in range(len(orch.jobs)) if i in runner.outcomes]
    return OrchestrationResult(
        status,
        {o.name: o for o in ordered},
        orch.name,
        round(time.monotonic() - start, 3),
        {
            "size": runner.pool.size,
            "max_running": runner.pool.max_running,
            "utilisation": round(runner.pool.utilisation(), 4),
        },
    )


def result_of(outcome: RequestOutcome, timeout_seconds: float | None) -> RunResult:
    """``run_evaluation``'s return value from its request's outcome, or the error it raises: the error that
    kept the request from running; RunTimeoutError; EvaluationFailedError for a request stopped by an error
    (a dead model endpoint) or failed as a whole; any other error that ended it, as raised."""
    result, exc = outcome.result, outcome.exception
    if result is None:
        raise exc if exc is not None else EvaluationFailedError(outcome.error or "the request did not run")
    run_dir = result["paths"]["run_dir"]
    if outcome.status == RunStatus.TIMEOUT:
        raise RunTimeoutError(
            f"timeout_seconds={timeout_seconds} expired; finished results are in {run_dir}", result=result
        )
    if outcome.status == RunStatus.CANCELLED:
        raise asyncio.CancelledError()
    if outcome.status == RunStatus.STOPPED_BUDGET:
        raise BudgetExhaustedError(budget_message(result), result=result)
    if exc is not None:
        if isinstance(exc, StorageError) and outcome.error:
            raise EvaluationFailedError(outcome.error, result=result)
        if isinstance(exc, AgentCompassError) and exc.stops_request:
            raise EvaluationFailedError(f"{one_line(exc)}; finished results are in {run_dir}", result=result)
        raise exc
    if outcome.status == RunStatus.FAILED:
        metrics = result["metrics"]
        raise EvaluationFailedError(
            f"run failed: {metrics['n_errors']} of {metrics['n_tasks']} tasks ended in errors; see {run_dir}",
            result=result,
        )
    return result
