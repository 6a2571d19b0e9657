"""Run every request of an orchestration on ONE attempt pool; a failing request never discards the others."""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentcompass._orchestrator.executor import Executor, open_executor
from agentcompass._orchestrator.hooks import Hooks
from agentcompass._orchestrator.logs import console_logging, file_logging
from agentcompass._orchestrator.pool import Pool
from agentcompass._orchestrator.progress import Progress, RequestFinished
from agentcompass._orchestrator.request import RequestRun
from agentcompass.errors import one_line
from agentcompass.interfaces import RunStatus

from .sweep import Job

log = logging.getLogger("agentcompass")


@dataclass
class RequestOutcome:
    """One named request's outcome inside an orchestration."""

    name: str
    status: RunStatus  # completed | failed | timeout | cancelled
    result: dict[str, Any] | None = None  # what run_evaluation would have returned
    error: str | None = None  # "<ErrorType>: <message>"
    paths: dict[str, str] = field(default_factory=dict)


@dataclass
class OrchestrationResult:
    status: RunStatus  # completed (every request completed) | failed | timeout | cancelled
    requests: dict[str, RequestOutcome] = field(default_factory=dict)
    name: str = "orchestration"
    duration_s: float = 0.0
    pool: dict[str, Any] = field(default_factory=dict)  # size, max_running, utilisation


@dataclass
class Orchestration:
    """A resolved orchestration: every request composed and validated, nothing run yet.

    ``runtime`` holds the orchestration-wide settings given explicitly (the spec's top-level ``runtime`` and the
    ``launch()`` keywords); every request's own config holds them too. A setting missing here is read from the
    first request's config (a ``run -m`` sweep, whose settings come from its requests).
    """

    name: str
    task_concurrency: int
    jobs: list[Job]
    runtime: dict[str, Any] = field(default_factory=dict)  # timeout_seconds, progress, log levels, limits...


def _runtime_value(orch: Orchestration, key: str, default: Any) -> Any:
    if orch.runtime.get(key) is not None:
        return orch.runtime[key]
    for job in orch.jobs:
        if job.resolved is not None:
            return getattr(job.resolved.config.runtime, key)
    return default


class _Runner:
    def __init__(
        self, orch: Orchestration, hooks: Hooks, on_progress: Callable | None, on_request_finished: Callable | None
    ):
        self.orch, self.hooks, self.on_request_finished = orch, hooks, on_request_finished
        self.pool = Pool(
            orch.task_concurrency, _runtime_value(orch, "provider_limits", {}), _runtime_value(orch, "env_open_qps", {})
        )
        self.progress = Progress(_runtime_value(orch, "progress", "auto"), 0, on_progress, desc=orch.name)
        self.outcomes: dict[str, RequestOutcome] = {}
        self.runs: list[RequestRun] = []
        self.executor: Executor | None = None

    def _done(self, outcome: RequestOutcome) -> None:
        self.outcomes[outcome.name] = outcome
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

    async def prepare(self) -> None:
        configs = [job.resolved.config for job in self.orch.jobs if job.error is None and job.resolved is not None]
        self.executor = await open_executor(self.hooks.executor, configs, self.pool, log)
        for job in self.orch.jobs:
            if job.error is not None:
                self._done(RequestOutcome(job.name, RunStatus.FAILED, error=one_line(job.error)))
                continue
            run = RequestRun(job.resolved, job.name, self.pool, self.progress, self.hooks, self.executor)
            try:
                await asyncio.to_thread(run.prepare)
            except Exception as exc:
                self._done(RequestOutcome(job.name, RunStatus.FAILED, error=one_line(exc)))
                continue
            self.runs.append(run)
            self.progress.add_total(len(run.pending))

    async def run_one(self, run: RequestRun) -> None:
        runtime = run.cfg.runtime
        try:
            with file_logging(run.log_path, runtime.file_log_level, run.name):
                await run.start()
                await run.execute()
                result = await run.afinalize(RunStatus.COMPLETED)
            self._record(run, result)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.error("request %s failed: %s", run.name, one_line(exc))
            self._record(run, run.finalize(RunStatus.FAILED), error=one_line(exc))
        finally:
            await run.aclose()

    def _record(self, run: RequestRun, result: dict[str, Any], error: str | None = None) -> None:
        final = result["metadata"]["status"]
        if final == RunStatus.FAILED and error is None:
            error = f"EvaluationFailedError: every task ended in an error ({result['metrics']['n_errors']})"
        self._done(RequestOutcome(run.name, final, result=result, error=error, paths=result["paths"]))

    def cancel_rest(self, status: RunStatus) -> None:
        for run in self.runs:
            if run.name not in self.outcomes:
                self._record(run, run.finalize(status), error=f"the orchestration {status}")
                asyncio.ensure_future(run.aclose())


async def _wind_down(tasks: list[asyncio.Future], orch: Orchestration) -> None:
    """Wait while the requests the interrupted gather cancelled close their environments (each request bounds
    its attempts by ``cleanup_grace_seconds``): the gather stops waiting at the first cancelled request, and what
    is still closing when the event loop ends would be cancelled half-way (workspaces and containers left).
    They are not cancelled again: a second cancellation would cut their own wait for their attempts short."""
    pending = [t for t in tasks if not t.done()]
    if pending:
        await asyncio.wait(pending, timeout=float(_runtime_value(orch, "cleanup_grace_seconds", 10)) + 90.0)


async def run_orchestration(
    orch: Orchestration,
    *,
    hooks: Hooks,
    on_progress: Callable | None = None,
    on_request_finished: Callable | None = None,
) -> OrchestrationResult:
    start = time.monotonic()
    runner = _Runner(orch, hooks, on_progress, on_request_finished)
    status = RunStatus.COMPLETED
    tasks: list[asyncio.Future] = []
    with console_logging(_runtime_value(orch, "log_level", "INFO")):
        try:
            await runner.prepare()
            tasks = [asyncio.ensure_future(runner.run_one(run)) for run in runner.runs]
            async with asyncio.timeout(_runtime_value(orch, "timeout_seconds", None)):
                await asyncio.gather(*tasks)
        except TimeoutError:
            status = RunStatus.TIMEOUT
            await _wind_down(tasks, orch)
            runner.cancel_rest(status)
        except asyncio.CancelledError:
            await _wind_down(tasks, orch)
            runner.cancel_rest(RunStatus.CANCELLED)
            raise
        finally:
            runner.progress.close()
            if runner.executor is not None:
                await runner.executor.aclose()
    if status == RunStatus.COMPLETED and any(o.status != RunStatus.COMPLETED for o in runner.outcomes.values()):
        status = RunStatus.FAILED
    ordered = {job.name: runner.outcomes[job.name] for job in orch.jobs if job.name in runner.outcomes}
    return OrchestrationResult(
        status,
        ordered,
        orch.name,
        round(time.monotonic() - start, 3),
        {
            "size": runner.pool.size,
            "max_running": runner.pool.max_running,
            "utilisation": round(runner.pool.utilisation(), 4),
        },
    )
