"""The SDK entry points for a single request: ``run_evaluation`` and ``async_run_evaluation``."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any, Callable, Sequence

from agentcompass._config.compose import ComposeInput, ResolvedRequest, compose_request
from agentcompass._config.merge import deep_merge
from agentcompass.errors import ConfigError, EvaluationFailedError, RunTimeoutError

_RUNTIME_KEYS = ("task_concurrency", "results_dir", "data_dir", "timeout_seconds", "provider_limits",
                 "env_open_qps", "progress", "log_level", "file_log_level", "log_file",
                 "auto_install_dependencies", "reuse", "reuse_run_id", "checkpoint_resume", "recipe_dirs")
_EXECUTION_KEYS = ("max_retries", "retry_pattern_list", "enabled_recipes", "keep_environment",
                   "enable_analysis", "analysis_params")
_PARAM_GROUPS = {"benchmark_params": "benchmark", "harness_params": "harness",
                 "environment_params": "environment", "execution_params": "execution"}
_MODEL_KEYS = {"model_base_url": "base_url", "model_api_key": "api_key", "model_api_protocol": "api_protocol",
               "model_params": "params"}


def _as_paths(value: str | Path | Sequence[str | Path] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (str, Path)):
        return [str(value)]
    return [str(v) for v in value]


def _dict_param(name: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{name} must be a dict (CLI: a JSON object), got {type(value).__name__}: {value!r}")
    return value


def build_explicit(kw: dict[str, Any]) -> dict[str, Any]:
    """The explicit-argument layer of the config (wins over files and overrides). None = not given."""
    explicit: dict[str, Any] = {}
    for name, group in _PARAM_GROUPS.items():
        if kw.get(name) is not None:
            deep_merge(explicit.setdefault(group, {}), _dict_param(name, kw[name]))
    for name, key in _MODEL_KEYS.items():
        if kw.get(name) is not None:
            value = _dict_param(name, kw[name]) if name == "model_params" else kw[name]
            explicit.setdefault("model", {})[key] = value
    for key in _RUNTIME_KEYS:
        if kw.get(key) is not None:
            explicit.setdefault("runtime", {})[key] = kw[key]
    for key in _EXECUTION_KEYS:
        if kw.get(key) is not None:
            explicit.setdefault("execution", {})[key] = kw[key]
    for key in ("run_name", "run_id"):
        if kw.get(key) is not None:
            explicit.setdefault("output", {})[key] = kw[key]
    return explicit


def compose_from_kwargs(kw: dict[str, Any]) -> ResolvedRequest:
    """Compose and validate the request described by ``run_evaluation``'s keywords."""
    timeout = kw.get("timeout_seconds")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int) or timeout <= 0):
        raise ConfigError(f"timeout_seconds must be a positive integer number of seconds for a single request, "
                          f"got {timeout!r}")
    inp = ComposeInput(choices={"benchmark": kw.get("benchmark"), "harness": kw.get("harness"),
                                "model": kw.get("model"), "environment": kw.get("environment")},
                       config_paths=_as_paths(kw.get("config_path")), overrides=list(kw.get("overrides") or ()),
                       explicit=build_explicit(kw))
    resolved = compose_request(inp)
    check_supported(resolved)
    return resolved


def check_supported(resolved: ResolvedRequest) -> None:
    """Checks that need more than the schema: ``analysis_params`` (validated before anything runs)."""
    ex = resolved.config.execution
    if ex.enable_analysis or ex.analysis_params:
        from agentcompass._analysis import parse_params

        parse_params(ex.analysis_params)


async def async_run_evaluation(
    *, benchmark: str | None = None, harness: str | None = None, model: str | None = None,
    environment: str | None = None, config_path: str | Path | Sequence[str | Path] | None = None,
    task_concurrency: int | None = None, results_dir: str | Path | None = None, data_dir: str | Path | None = None,
    timeout_seconds: int | None = None, provider_limits: dict[str, int] | None = None,
    env_open_qps: dict[str, float] | None = None, progress: str | None = None, log_level: str | None = None,
    file_log_level: str | None = None, log_file: str | Path | None = None,
    auto_install_dependencies: bool | None = None, on_progress: Callable[[Any], Any] | None = None,
    benchmark_params: dict[str, Any] | None = None, harness_params: dict[str, Any] | None = None,
    model_base_url: str | None = None, model_api_key: str | None = None,
    model_api_protocol: str | list[str] | None = None, model_params: dict[str, Any] | None = None,
    environment_params: dict[str, Any] | None = None, execution_params: dict[str, Any] | None = None,
    max_retries: int | None = None, retry_pattern_list: list[str] | None = None,
    enabled_recipes: list[str] | None = None, recipe_dirs: Sequence[str | Path] | None = None,
    run_name: str | None = None, run_id: str | None = None, reuse: bool | None = None,
    reuse_run_id: str | None = None, checkpoint_resume: bool | None = None, keep_environment: bool | None = None,
    enable_analysis: bool | None = None, analysis_params: dict[str, Any] | None = None,
    overrides: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Run one evaluation request; return ``{metadata, metrics, summary, paths}``.

    Raises ConfigError (bad input, nothing ran), RunTimeoutError (a TimeoutError; finished results kept),
    EvaluationFailedError (the run failed as a whole; partial results on disk).
    """
    kw = dict(locals())
    kw.pop("on_progress")
    for key in ("results_dir", "data_dir", "log_file"):
        if kw[key] is not None:
            kw[key] = str(kw[key])
    if kw["recipe_dirs"] is not None:
        kw["recipe_dirs"] = _as_paths(kw["recipe_dirs"])
    resolved = await asyncio.to_thread(compose_from_kwargs, kw)
    return await run_resolved(resolved, on_progress=on_progress)


async def run_resolved(resolved: ResolvedRequest, *, on_progress: Callable[[Any], Any] | None = None,
                       name: str = "") -> dict[str, Any]:
    from agentcompass._orchestrator.single import run_single

    return await run_single(resolved, on_progress=on_progress, name=name)


def run_evaluation(**kwargs: Any) -> dict[str, Any]:
    """Synchronous twin of :func:`async_run_evaluation` (same keywords, same return value)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(async_run_evaluation(**kwargs))
    return _in_thread(lambda: asyncio.run(async_run_evaluation(**kwargs)))


def _in_thread(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` in a fresh thread (used when the caller already runs an event loop)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, name="agentcompass-run")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


__all__ = ["run_evaluation", "async_run_evaluation", "EvaluationFailedError", "RunTimeoutError"]
