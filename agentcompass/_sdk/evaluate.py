"""The SDK entry points for a single request: ``run_evaluation`` and ``async_run_evaluation``.

Both are ordinary keyword-only functions. Their keywords are the options table's ``run`` rows (docs/options.md,
derived from the config schema); the call's keywords become one :class:`~.spec.EvaluationRequest`, checked once,
which is composed into the request's config and run as an orchestration of one request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from .spec import EvaluationRequest, Level, PathLike, Progress
from .threads import run_sync

if TYPE_CHECKING:
    from agentcompass._config import ResolvedRequest
    from agentcompass._orchestrator.record import RunResult


def compose_from_kwargs(kw: dict[str, Any]) -> ResolvedRequest:
    """Compose and validate the request described by ``run_evaluation``'s keywords held in a dict."""
    return EvaluationRequest.from_keywords("run_evaluation", kw).compose()


async def evaluate(request: EvaluationRequest, *, name: str = "") -> RunResult:
    """Compose ``request`` (in a worker thread: Hydra blocks) and run it; what ``run_evaluation`` returns."""
    resolved = await asyncio.to_thread(request.compose)
    return await run_resolved(resolved, on_progress=request.on_progress, name=name)


async def run_resolved(
    resolved: ResolvedRequest, *, on_progress: Callable[[Any], Any] | None = None, name: str = ""
) -> RunResult:
    from agentcompass._launch.run import Orchestration, result_of, run_orchestration

    from .hooks import default_hooks

    done = await run_orchestration(Orchestration.single(resolved, name), hooks=default_hooks(), on_progress=on_progress)
    (outcome,) = done.requests.values()
    return result_of(outcome, resolved.config.runtime.timeout_seconds)


async def async_run_evaluation(
    *,
    benchmark: str | None = None,
    harness: str | None = None,
    model: str | None = None,
    environment: str | None = None,
    config_path: PathLike | Sequence[PathLike] | None = None,
    overrides: Sequence[str] | None = None,
    benchmark_params: dict[str, Any] | None = None,
    harness_params: dict[str, Any] | None = None,
    environment_params: dict[str, Any] | None = None,
    execution_params: dict[str, Any] | None = None,
    model_base_url: str | None = None,
    model_api_key: str | None = None,
    model_api_protocol: str | list[str] | None = None,
    model_params: dict[str, Any] | None = None,
    model_roles: dict[str, Any] | None = None,
    model_cache: Literal["off", "read_write", "read_only"] | None = None,
    replay: PathLike | None = None,
    on_progress: Callable[[Any], Any] | None = None,
    task_concurrency: int | None = None,
    results_dir: PathLike | None = None,
    data_dir: PathLike | None = None,
    timeout_seconds: int | None = None,
    provider_limits: dict[str, int] | None = None,
    env_open_qps: dict[str, float] | None = None,
    progress: Progress | None = None,
    log_level: Level | None = None,
    file_log_level: Level | None = None,
    log_file: PathLike | None = None,
    auto_install_dependencies: bool | None = None,
    reuse: bool | None = None,
    reuse_run_id: str | None = None,
    checkpoint_resume: bool | None = None,
    recipe_dirs: list[PathLike] | None = None,
    n_attempts: int | None = None,
    max_retries: int | None = None,
    retry_pattern_list: list[str] | None = None,
    enabled_recipes: list[str] | None = None,
    keep_environment: bool | None = None,
    enable_analysis: bool | None = None,
    integrity_scan: bool | None = None,
    integrity_review: bool | None = None,
    integrity_review_params: dict[str, Any] | None = None,
    analysis_params: dict[str, Any] | None = None,
    cost_limit_usd: float | None = None,
    token_limit: int | None = None,
    budget_policy: Literal["finish", "cancel"] | None = None,
    attempt_cost_limit_usd: float | None = None,
    attempt_max_model_calls: int | None = None,
    attempt_max_tokens_total: int | None = None,
    run_name: str | None = None,
    run_id: str | None = None,
) -> RunResult:
    """Run one evaluation request; return ``{metadata, metrics, summary, paths}``.

    Every keyword is optional (None: not given, the config files and the defaults decide); docs/options.md
    describes each. The components: ``benchmark``, ``harness``, ``model``, ``environment`` (ids) and their
    ``*_params`` (merged into their configs); ``config_path`` (YAML files, in order) and ``overrides``
    (Hydra-style ``key=value``); the model endpoint (``model_base_url``, ``model_api_key``,
    ``model_api_protocol``, ``model_params``); the runtime (``task_concurrency``, ``results_dir``,
    ``timeout_seconds`` in whole seconds...), execution (``max_retries``, ``n_attempts``, budgets...) and output
    (``run_name``, ``run_id``) settings; ``on_progress`` receives progress events.

    Raises ArgumentError (a ConfigError and a TypeError: a value of the wrong type), ConfigError (bad input,
    nothing ran), RunTimeoutError (a TimeoutError; finished results kept), EvaluationFailedError (the run failed
    as a whole; partial results on disk), BudgetExhaustedError (a budget stopped the run).
    """
    request = EvaluationRequest(caller="async_run_evaluation", **locals())  # locals(): exactly the keywords
    return await evaluate(request)


def run_evaluation(
    *,
    benchmark: str | None = None,
    harness: str | None = None,
    model: str | None = None,
    environment: str | None = None,
    config_path: PathLike | Sequence[PathLike] | None = None,
    overrides: Sequence[str] | None = None,
    benchmark_params: dict[str, Any] | None = None,
    harness_params: dict[str, Any] | None = None,
    environment_params: dict[str, Any] | None = None,
    execution_params: dict[str, Any] | None = None,
    model_base_url: str | None = None,
    model_api_key: str | None = None,
    model_api_protocol: str | list[str] | None = None,
    model_params: dict[str, Any] | None = None,
    model_roles: dict[str, Any] | None = None,
    model_cache: Literal["off", "read_write", "read_only"] | None = None,
    replay: PathLike | None = None,
    on_progress: Callable[[Any], Any] | None = None,
    task_concurrency: int | None = None,
    results_dir: PathLike | None = None,
    data_dir: PathLike | None = None,
    timeout_seconds: int | None = None,
    provider_limits: dict[str, int] | None = None,
    env_open_qps: dict[str, float] | None = None,
    progress: Progress | None = None,
    log_level: Level | None = None,
    file_log_level: Level | None = None,
    log_file: PathLike | None = None,
    auto_install_dependencies: bool | None = None,
    reuse: bool | None = None,
    reuse_run_id: str | None = None,
    checkpoint_resume: bool | None = None,
    recipe_dirs: list[PathLike] | None = None,
    n_attempts: int | None = None,
    max_retries: int | None = None,
    retry_pattern_list: list[str] | None = None,
    enabled_recipes: list[str] | None = None,
    keep_environment: bool | None = None,
    enable_analysis: bool | None = None,
    integrity_scan: bool | None = None,
    integrity_review: bool | None = None,
    integrity_review_params: dict[str, Any] | None = None,
    analysis_params: dict[str, Any] | None = None,
    cost_limit_usd: float | None = None,
    token_limit: int | None = None,
    budget_policy: Literal["finish", "cancel"] | None = None,
    attempt_cost_limit_usd: float | None = None,
    attempt_max_model_calls: int | None = None,
    attempt_max_tokens_total: int | None = None,
    run_name: str | None = None,
    run_id: str | None = None,
) -> RunResult:
    """Synchronous twin of :func:`async_run_evaluation` (same keywords, same return value, same errors); may be
    called from a thread that already runs an event loop (it then runs in a worker thread of its own)."""
    request = EvaluationRequest(caller="run_evaluation", **locals())  # locals(): exactly the keywords
    return run_sync(lambda: evaluate(request))


def new_run_id() -> str:
    """A new run id, as a run would pick it (the CLI picks it first, to print the command that resumes the run)."""
    from agentcompass._orchestrator.record import new_run_id as make

    return make()
