"""The SDK entry points for a single request: ``run_evaluation`` and ``async_run_evaluation``.

Their keywords are the options table's ``run`` rows (:mod:`agentcompass._config.options`, derived from the
schema): ``inspect.signature(run_evaluation)`` lists them, and an unknown keyword is a TypeError.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcompass._config import options
from agentcompass._config.compose import ComposeInput, ResolvedRequest, compose_request
from agentcompass._config.registry import GROUPS
from agentcompass.errors import ConfigError

from .arguments import check_keywords, check_positional
from .hooks import check_analysis_params, default_hooks
from .threads import run_sync

if TYPE_CHECKING:
    from agentcompass._orchestrator.result import RunResult

_SIGNATURE = options.signature("run").replace(return_annotation=dict[str, Any])


def bind(signature: inspect.Signature, name: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The given keywords, checked against ``signature`` and the options' types (an ArgumentError: a
    ConfigError and a TypeError)."""
    return check_keywords(signature, name, kwargs)


def as_paths(value: str | Path | Sequence[str | Path] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (str, Path)):
        return [str(value)]
    return [str(v) for v in value]


def compose_input(kw: dict[str, Any]) -> ComposeInput:
    """The compose input of ``run_evaluation``'s keywords (None = not given)."""
    kw = options.normalized(kw)
    return ComposeInput(
        choices={g: kw.get(g) for g in GROUPS},
        config_paths=as_paths(kw.get("config_path")),
        overrides=list(kw.get("overrides") or ()),
        explicit=options.config_layer(kw),
    )


def compose_from_kwargs(kw: dict[str, Any]) -> ResolvedRequest:
    """Compose and validate the request described by ``run_evaluation``'s keywords."""
    bind(_SIGNATURE, "run_evaluation", kw)
    _check_narrower(kw)
    resolved = compose_request(compose_input(kw))
    check_analysis_params(resolved)
    return resolved


def _check_narrower(kw: dict[str, Any]) -> None:
    """Keywords a single request takes in a narrower type than ``launch`` (the options table's ``narrower``)."""
    for row in options.for_entry("run"):
        narrow, value = row.annotation_for("run"), kw.get(row.name)
        if value is None or narrow is row.annotation:
            continue
        if narrow is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise ConfigError(
                f"{row.name} must be an integer for a single request (launch also takes fractions), got {value!r}"
            )


async def async_run_evaluation(*args: Any, **kwargs: Any) -> RunResult:
    """Run one evaluation request; return ``{metadata, metrics, summary, paths}``.

    Keyword-only; every keyword of the options table's ``run`` rows (see the signature). Raises ConfigError
    (bad input, nothing ran), RunTimeoutError (a TimeoutError; finished results kept), EvaluationFailedError
    (the run failed as a whole; partial results on disk).
    """
    check_positional("async_run_evaluation", args)
    kw = bind(_SIGNATURE, "async_run_evaluation", kwargs)
    on_progress = kw.pop("on_progress", None)
    resolved = await asyncio.to_thread(compose_from_kwargs, kw)
    return await run_resolved(resolved, on_progress=on_progress)


async def run_resolved(
    resolved: ResolvedRequest, *, on_progress: Callable[[Any], Any] | None = None, name: str = ""
) -> RunResult:
    from agentcompass._launch.run import Orchestration, result_of, run_orchestration

    done = await run_orchestration(Orchestration.single(resolved, name), hooks=default_hooks(), on_progress=on_progress)
    (outcome,) = done.requests.values()
    return result_of(outcome, resolved.config.runtime.timeout_seconds)


def run_evaluation(*args: Any, **kwargs: Any) -> RunResult:
    """Synchronous twin of :func:`async_run_evaluation` (same keywords, same return value); may be called from a
    thread that already runs an event loop (it then runs in a worker thread of its own)."""
    check_positional("run_evaluation", args)
    bind(_SIGNATURE, "run_evaluation", kwargs)
    return run_sync(lambda: async_run_evaluation(**kwargs))


def new_run_id() -> str:
    """A new run id, as a run would pick it (the CLI picks it first, to print the command that resumes the run)."""
    from agentcompass._orchestrator.store import new_run_id as make

    return make()


async_run_evaluation.__signature__ = _SIGNATURE  # type: ignore[attr-defined]
run_evaluation.__signature__ = _SIGNATURE  # type: ignore[attr-defined]
