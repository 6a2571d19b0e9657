"""``launch`` / ``async_launch``: several named requests as one Hydra multirun sharing one attempt pool."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable, Sequence

from agentcompass.errors import ConfigError, RunTimeoutError

from .resolve import load_spec_file, resolve_orchestration
from .run import Orchestration, OrchestrationResult, RequestOutcome, run_orchestration
from .spec import OrchestrationDefaults, OrchestrationSpec, RunRequestSpec

__all__ = ["launch", "async_launch", "OrchestrationSpec", "OrchestrationDefaults", "RunRequestSpec",
           "OrchestrationResult", "RequestOutcome", "Orchestration", "load_spec_file", "resolve_orchestration"]


async def async_launch(
    orchestration: OrchestrationSpec | Orchestration | dict[str, Any], *,
    config_path: str | Path | Sequence[str | Path] | None = None, task_concurrency: int | None = None,
    results_dir: str | Path | None = None, data_dir: str | Path | None = None,
    timeout_seconds: float | None = None, provider_limits: dict[str, int] | None = None,
    env_open_qps: dict[str, float] | None = None, progress: str | None = None, log_level: str | None = None,
    file_log_level: str | None = None, log_file: str | Path | None = None,
    auto_install_dependencies: bool | None = None, cleanup_grace_seconds: float | None = None,
    on_progress: Callable[[Any], Any] | None = None, on_request_finished: Callable[[Any], Any] | None = None,
) -> OrchestrationResult:
    """Run every request of ``orchestration`` on one attempt pool and return each request's outcome.

    A failed request is reported in its own outcome (``status``, ``error``) and never discards the others.
    ``timeout_seconds`` (fractional allowed) bounds the whole orchestration: finished requests keep their
    results, the rest are cancelled (environments get ``cleanup_grace_seconds`` to close) and
    ``RunTimeoutError`` is raised with the partial ``OrchestrationResult`` as ``exc.result``.
    """
    shared = {k: (str(v) if isinstance(v, Path) else v) for k, v in dict(
        task_concurrency=task_concurrency, results_dir=results_dir, data_dir=data_dir, timeout_seconds=timeout_seconds,
        provider_limits=provider_limits, env_open_qps=env_open_qps, progress=progress, log_level=log_level,
        file_log_level=file_log_level, log_file=log_file, auto_install_dependencies=auto_install_dependencies,
        cleanup_grace_seconds=cleanup_grace_seconds).items() if v is not None}
    if isinstance(orchestration, Orchestration):
        if config_path is not None:
            raise ConfigError("config_path is accepted only with an OrchestrationSpec, not a resolved Orchestration")
        orch = orchestration
        orch.runtime.update(shared)
    else:
        orch = await asyncio.to_thread(resolve_orchestration, orchestration, config_path=config_path, shared=shared)
    result = await run_orchestration(orch, on_progress=on_progress, on_request_finished=on_request_finished)
    if result.status == "timeout":
        raise RunTimeoutError(f"the orchestration's timeout_seconds={orch.runtime.get('timeout_seconds')} expired; "
                              "finished requests keep their results", result=result)  # type: ignore[arg-type]
    return result


def launch(orchestration: OrchestrationSpec | Orchestration | dict[str, Any], **kwargs: Any) -> OrchestrationResult:
    """Synchronous twin of :func:`async_launch`; safe to call from several threads at once."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(async_launch(orchestration, **kwargs))
    from agentcompass._sdk import _in_thread

    return _in_thread(lambda: asyncio.run(async_launch(orchestration, **kwargs)))
