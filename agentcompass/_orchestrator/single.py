"""Run one resolved request on its own pool (``run_evaluation``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from agentcompass._config.compose import ResolvedRequest
from agentcompass.errors import AgentCompassError, EvaluationFailedError, RunTimeoutError, StorageError, one_line
from agentcompass.interfaces import RunStatus

from .executor import open_executor
from .hooks import Hooks
from .logs import LOGGER, console_logging, file_logging
from .pool import Pool
from .progress import Progress, RequestFinished
from .request import RequestRun


async def run_single(
    resolved: ResolvedRequest, *, hooks: Hooks, on_progress: Callable[[Any], Any] | None = None, name: str = ""
) -> dict[str, Any]:
    runtime = resolved.config.runtime
    pool = Pool(runtime.task_concurrency, runtime.provider_limits, runtime.env_open_qps)
    progress = Progress(runtime.progress, 0, on_progress)
    with console_logging(runtime.log_level):
        try:
            executor = await open_executor(hooks.executor, [resolved.config], pool, LOGGER)
        except BaseException:
            progress.close()
            raise
        run = RequestRun(resolved, name, pool, progress, hooks, executor)
        try:
            await asyncio.to_thread(run.prepare)
            progress.add_total(len(run.pending))
            with file_logging(run.log_path, runtime.file_log_level, run.name):
                await run.start()
                status, stopped = await _execute(run, runtime.timeout_seconds)
                result = await run.afinalize(status)
        finally:
            progress.close()
            await run.aclose()
            if executor is not None:
                await executor.aclose()
    progress.emit(RequestFinished(run.name, status=result["metadata"]["status"], metrics=result["metrics"]))
    if status == RunStatus.TIMEOUT:
        raise RunTimeoutError(
            f"timeout_seconds={runtime.timeout_seconds} expired; finished results are in {result['paths']['run_dir']}",
            result=result,
        )
    stopped = stopped or run.storage_error
    if isinstance(stopped, StorageError):
        raise EvaluationFailedError(stopped_by_disk(stopped, run, result), result=result)
    if stopped is not None:
        raise EvaluationFailedError(
            f"{one_line(stopped)}; finished results are in {result['paths']['run_dir']}", result=result
        )
    if result["metadata"]["status"] == RunStatus.FAILED:
        raise EvaluationFailedError(
            f"run failed: {result['metrics']['n_errors']} of {result['metrics']['n_tasks']} "
            f"tasks ended in errors; see {result['paths']['run_dir']}",
            result=result,
        )
    return result


def stopped_by_disk(exc: StorageError, run: RequestRun, result: dict[str, Any]) -> str:
    """One line: the file that did not fit, how much of the run is kept, and how to go on."""
    total = run.n_tasks * run.cfg.execution.n_attempts
    return (
        f"{exc}; the run stopped with {len(run.rows)} of {total} samples finished, kept in "
        f"{result['paths']['run_dir']}; free space, then resume with --reuse {result['metadata']['run_id']}"
    )


async def _execute(run: RequestRun, timeout: float | None) -> tuple[RunStatus, AgentCompassError | None]:
    """The run's status, and the error that stopped it early (``stops_request``: a dead model endpoint)."""
    try:
        async with asyncio.timeout(timeout):
            await run.execute()
    except TimeoutError:
        return RunStatus.TIMEOUT, None
    except asyncio.CancelledError:
        run.finalize(RunStatus.CANCELLED)
        raise
    except AgentCompassError as exc:
        if not exc.stops_request:
            raise
        run.logger.debug("%s: the request is stopped", one_line(exc))
        return RunStatus.FAILED, exc
    return RunStatus.COMPLETED, None
