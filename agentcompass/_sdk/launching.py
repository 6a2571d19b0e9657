"""``launch`` / ``async_launch`` (several named requests on one attempt pool), orchestration files, and
``run -m`` sweeps.

The orchestration-wide settings are one :class:`~.spec.LaunchSettings` (``settings=``); each of its fields is
also a keyword of ``launch`` (the options table's ``launch`` rows), which overrides the object's field.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcompass._launch import (
    Orchestration,
    OrchestrationResult,
    OrchestrationSpec,
    apply_runtime,
    load_spec_file,
    orchestration_runtime,
    resolve_orchestration,
    run_orchestration,
)
from agentcompass.errors import ArgumentError, ConfigError, RunTimeoutError
from agentcompass.interfaces import RunStatus

from .arguments import check_values
from .hooks import check_analysis_params, default_hooks
from .spec import EvaluationRequest, LaunchSettings, Level, PathLike, Progress
from .threads import run_sync

_CALL_KEYWORDS = ("orchestration", "settings", "config_path", "on_progress", "on_request_finished")


@dataclass(frozen=True)
class _LaunchCall:
    """One call of ``launch``, checked: the orchestration, its settings (keywords over ``settings``), the rest."""

    orchestration: OrchestrationSpec | Orchestration | dict[str, Any]
    settings: LaunchSettings
    config_path: PathLike | Sequence[PathLike] | None
    on_progress: Callable[[Any], Any] | None
    on_request_finished: Callable[[Any], Any] | None

    @classmethod
    def of(cls, name: str, given: dict[str, Any]) -> _LaunchCall:
        orchestration, settings = given["orchestration"], given["settings"]
        if not isinstance(orchestration, (OrchestrationSpec, Orchestration, dict)):
            raise ArgumentError(
                f"{name}(): orchestration must be an OrchestrationSpec, a resolved Orchestration or "
                f"a dict, got {type(orchestration).__name__}"
            )
        if settings is not None and not isinstance(settings, LaunchSettings):
            raise ArgumentError(f"{name}(): settings must be a LaunchSettings, got {type(settings).__name__}")
        rest = {k: given[k] for k in _CALL_KEYWORDS[2:]}
        check_values(name, rest, "launch")
        keywords = {k: v for k, v in given.items() if k not in _CALL_KEYWORDS}
        return cls(orchestration, (settings or LaunchSettings()).updated(name, keywords), **rest)


async def _launch(call: _LaunchCall) -> OrchestrationResult:
    orchestration, shared = call.orchestration, call.settings.given()
    if isinstance(orchestration, Orchestration):
        if call.config_path is not None:
            raise ConfigError(
                "config_path is accepted only with an OrchestrationSpec, not a resolved Orchestration "
                "(its requests are already composed)"
            )
        orch = await asyncio.to_thread(apply_runtime, orchestration, shared)
    else:
        orch = await asyncio.to_thread(
            resolve_orchestration,
            orchestration,
            config_path=call.config_path,
            shared=shared,
            check=check_analysis_params,
        )
    result = await run_orchestration(
        orch, hooks=default_hooks(), on_progress=call.on_progress, on_request_finished=call.on_request_finished
    )
    if result.status == RunStatus.TIMEOUT:
        raise RunTimeoutError(
            f"the orchestration's timeout_seconds={orch.runtime.timeout_seconds} expired; "
            "finished requests keep their results",
            result=result,
        )
    return result


async def async_launch(
    orchestration: OrchestrationSpec | Orchestration | dict[str, Any],
    *,
    settings: LaunchSettings | None = None,
    config_path: PathLike | Sequence[PathLike] | None = None,
    on_progress: Callable[[Any], Any] | None = None,
    on_request_finished: Callable[[Any], Any] | None = None,
    task_concurrency: int | None = None,
    results_dir: PathLike | None = None,
    data_dir: PathLike | None = None,
    timeout_seconds: float | None = None,
    provider_limits: dict[str, int] | None = None,
    env_open_qps: dict[str, float] | None = None,
    progress: Progress | None = None,
    log_level: Level | None = None,
    file_log_level: Level | None = None,
    log_file: PathLike | None = None,
    auto_install_dependencies: bool | None = None,
    orchestration_cost_limit_usd: float | None = None,
    orchestration_token_limit: int | None = None,
    cleanup_grace_seconds: float | None = None,
) -> OrchestrationResult:
    """Run every request of ``orchestration`` on one attempt pool and return each request's outcome.

    ``settings`` holds the orchestration-wide settings; each of them is also a keyword here, which wins over
    the object's field. They apply to an ``OrchestrationSpec`` (or its dict) and to a resolved ``Orchestration``
    alike; ``config_path`` applies to a spec only (with a resolved Orchestration it is a ConfigError). A failed
    request is reported in its own outcome (``status``, ``error``) and never discards the others.
    ``timeout_seconds`` (fractional allowed) bounds the whole orchestration: finished requests keep their
    results, the rest are cancelled (environments get ``cleanup_grace_seconds`` to close) and
    ``RunTimeoutError`` is raised with the partial ``OrchestrationResult`` as ``exc.result``.
    """
    return await _launch(_LaunchCall.of("async_launch", locals()))  # locals(): exactly the arguments


def launch(
    orchestration: OrchestrationSpec | Orchestration | dict[str, Any],
    *,
    settings: LaunchSettings | None = None,
    config_path: PathLike | Sequence[PathLike] | None = None,
    on_progress: Callable[[Any], Any] | None = None,
    on_request_finished: Callable[[Any], Any] | None = None,
    task_concurrency: int | None = None,
    results_dir: PathLike | None = None,
    data_dir: PathLike | None = None,
    timeout_seconds: float | None = None,
    provider_limits: dict[str, int] | None = None,
    env_open_qps: dict[str, float] | None = None,
    progress: Progress | None = None,
    log_level: Level | None = None,
    file_log_level: Level | None = None,
    log_file: PathLike | None = None,
    auto_install_dependencies: bool | None = None,
    orchestration_cost_limit_usd: float | None = None,
    orchestration_token_limit: int | None = None,
    cleanup_grace_seconds: float | None = None,
) -> OrchestrationResult:
    """Synchronous twin of :func:`async_launch` (same arguments, same result); safe to call from several
    threads at once."""
    call = _LaunchCall.of("launch", locals())  # locals(): exactly the arguments
    return run_sync(lambda: _launch(call))


def resolve_file(
    path: str | Path,
    *,
    run_id: str | None = None,
    reuse: bool = False,
    config_path: PathLike | Sequence[PathLike] | None = None,
    settings: LaunchSettings | None = None,
) -> Orchestration:
    """An orchestration file resolved with ``launch``'s settings (``agentcompass launch``): ``run_id`` sets every
    request's ``output.run_id``, ``reuse`` sets ``defaults.runtime.reuse`` (a request may still say false)."""
    check_values("launch", {"config_path": config_path}, "launch")
    spec = load_spec_file(path)
    if run_id is not None:
        spec.defaults.output.run_id = run_id  # type: ignore[attr-defined]  # a model made by create_model
        for req in spec.requests:
            req.output.run_id = run_id  # type: ignore[attr-defined]
    if reuse:
        spec.defaults.runtime.reuse = True  # type: ignore[attr-defined]
    shared = settings.given() if settings is not None else {}
    return resolve_orchestration(spec, config_path=config_path, shared=shared, check=check_analysis_params)


def run_sweep(**kwargs: Any) -> OrchestrationResult:
    """``agentcompass run ... -m key=a,b``: each combination of the ``overrides`` is one request of a Hydra
    multirun through the agentcompass launcher; the orchestration's settings are the first composed request's
    (every request has the same ones, but for an override that sweeps one)."""
    import dataclasses

    from agentcompass._launch.sweep import SweepHandle, decode_job, encode_sweep
    from agentcompass._launch.sweep import run_sweep as hydra_sweep

    request = EvaluationRequest.from_keywords("run_evaluation", kwargs)
    base = dataclasses.replace(request.compose_input(), overrides=())  # each job gets its own overrides
    encoded, keys = encode_sweep(list(request.overrides or ()))
    handle = SweepHandle(
        to_job=lambda number, overrides: decode_job(base, keys, overrides), check=check_analysis_params
    )
    jobs = hydra_sweep(handle, encoded)
    return launch(Orchestration("sweep", jobs, orchestration_runtime(jobs, {})), on_progress=request.on_progress)
