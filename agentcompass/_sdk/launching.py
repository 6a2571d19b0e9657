"""``launch`` / ``async_launch`` (several named requests on one attempt pool), orchestration files, and
``run -m`` sweeps. Keywords are the options table's ``launch`` rows."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

from agentcompass._config import options
from agentcompass._launch import (
    Orchestration,
    OrchestrationResult,
    OrchestrationSpec,
    apply_runtime,
    load_spec_file,
    resolve_orchestration,
    run_orchestration,
)
from agentcompass.errors import ArgumentError, ConfigError, RunTimeoutError
from agentcompass.interfaces import RunStatus

from .arguments import check_positional
from .evaluate import bind, compose_input
from .hooks import check_analysis_params, default_hooks
from .threads import run_sync

_ORCHESTRATION = inspect.Parameter(
    "orchestration",
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    annotation=OrchestrationSpec | Orchestration | dict[str, Any],
)
_SIGNATURE = options.signature("launch", leading=(_ORCHESTRATION,)).replace(return_annotation=OrchestrationResult)


def _runtime_keywords(kw: dict[str, Any]) -> dict[str, Any]:
    """The keywords that are runtime settings (task_concurrency, results_dir, ...), Paths as str."""
    rows = options.by_name()
    return {k: v for k, v in options.normalized(kw).items() if rows[k].section == "runtime"}


async def async_launch(
    orchestration: OrchestrationSpec | Orchestration | dict[str, Any] | None = None, *args: Any, **kwargs: Any
) -> OrchestrationResult:
    """Run every request of ``orchestration`` on one attempt pool and return each request's outcome.

    Every keyword applies, to an ``OrchestrationSpec`` (or its dict) and to a resolved ``Orchestration``
    alike, except ``config_path``, which a resolved Orchestration cannot take (a ConfigError). A failed request is
    reported in its own outcome (``status``, ``error``) and never discards the others. ``timeout_seconds``
    (fractional allowed) bounds the whole orchestration: finished requests keep their results, the rest are
    cancelled (environments get ``cleanup_grace_seconds`` to close) and ``RunTimeoutError`` is raised with the
    partial ``OrchestrationResult`` as ``exc.result``.
    """
    _check_call("async_launch", orchestration, args)
    kw = bind(_SIGNATURE, "async_launch", {"orchestration": orchestration, **kwargs})
    kw.pop("orchestration")
    on_progress, on_request_finished = kw.pop("on_progress", None), kw.pop("on_request_finished", None)
    config_path, shared = kw.pop("config_path", None), _runtime_keywords(kw)
    if isinstance(orchestration, Orchestration):
        if config_path is not None:
            raise ConfigError(
                "config_path is accepted only with an OrchestrationSpec, not a resolved Orchestration "
                "(its requests are already composed)"
            )
        orch = await asyncio.to_thread(apply_runtime, orchestration, shared)
    else:
        assert orchestration is not None  # _check_call: an OrchestrationSpec or a dict
        orch = await asyncio.to_thread(
            resolve_orchestration, orchestration, config_path=config_path, shared=shared, check=check_analysis_params
        )
    result = await run_orchestration(
        orch, hooks=default_hooks(), on_progress=on_progress, on_request_finished=on_request_finished
    )
    if result.status == RunStatus.TIMEOUT:
        raise RunTimeoutError(
            f"the orchestration's timeout_seconds={orch.runtime.get('timeout_seconds')} expired; "
            "finished requests keep their results",
            result=result,
        )
    return result


def launch(
    orchestration: OrchestrationSpec | Orchestration | dict[str, Any] | None = None, *args: Any, **kwargs: Any
) -> OrchestrationResult:
    """Synchronous twin of :func:`async_launch`; safe to call from several threads at once."""
    _check_call("launch", orchestration, args)
    bind(_SIGNATURE, "launch", {"orchestration": orchestration, **kwargs})
    return run_sync(lambda: async_launch(orchestration, **kwargs))


async_launch.__signature__ = _SIGNATURE  # type: ignore[attr-defined]
launch.__signature__ = _SIGNATURE  # type: ignore[attr-defined]


def _check_call(name: str, orchestration: Any, args: tuple[Any, ...]) -> None:
    """One positional argument (the orchestration), which must be an OrchestrationSpec, an Orchestration or a
    dict; anything else is an ArgumentError."""
    check_positional(name, (orchestration, *args), allowed=1)
    if not isinstance(orchestration, (OrchestrationSpec, Orchestration, dict)):
        raise ArgumentError(
            f"{name}(): orchestration must be an OrchestrationSpec, a resolved Orchestration or "
            f"a dict, got {type(orchestration).__name__}"
        )


def resolve_file(path: str | Path, *, run_id: str | None = None, reuse: bool = False, **kwargs: Any) -> Orchestration:
    """An orchestration file resolved with ``launch`` keywords (``agentcompass launch``): ``run_id`` sets every
    request's ``output.run_id``, ``reuse`` sets ``defaults.runtime.reuse`` (a request may still say false)."""
    kw = bind(_SIGNATURE, "launch", {"orchestration": path, **kwargs})
    kw.pop("orchestration")
    spec = load_spec_file(path)
    if run_id is not None:
        spec.defaults.output.run_id = run_id  # type: ignore[attr-defined]  # a model made by create_model
        for req in spec.requests:
            req.output.run_id = run_id  # type: ignore[attr-defined]
    if reuse:
        spec.defaults.runtime.reuse = True  # type: ignore[attr-defined]
    return resolve_orchestration(
        spec, config_path=kw.get("config_path"), shared=_runtime_keywords(kw), check=check_analysis_params
    )


def run_sweep(**kwargs: Any) -> OrchestrationResult:
    """``agentcompass run ... -m key=a,b``: each combination of the ``overrides`` is one request of a Hydra
    multirun through the agentcompass launcher; every request shares the first one's pool size."""
    from agentcompass._launch.sweep import SweepHandle, decode_job, encode_sweep
    from agentcompass._launch.sweep import run_sweep as hydra_sweep

    from .evaluate import _SIGNATURE as run_signature

    kw = bind(run_signature, "run_evaluation", kwargs)
    on_progress = kw.pop("on_progress", None)
    base = compose_input({**kw, "overrides": None})
    encoded, keys = encode_sweep(list(kw.get("overrides") or ()))
    handle = SweepHandle(
        to_job=lambda number, overrides: decode_job(base, keys, overrides), check=check_analysis_params
    )
    jobs = hydra_sweep(handle, encoded)
    concurrency = next((j.resolved.config.runtime.task_concurrency for j in jobs if j.resolved), None)
    if concurrency is None:  # no job composed: each one's outcome says why; the pool is never used
        from agentcompass._config.schema import RuntimeConfig, default_of

        concurrency = default_of(RuntimeConfig, "task_concurrency")
    return launch(Orchestration("sweep", concurrency, jobs), on_progress=on_progress)
