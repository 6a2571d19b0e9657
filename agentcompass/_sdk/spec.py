"""The typed requests of the SDK entry points: :class:`EvaluationRequest` (every keyword of ``run_evaluation``)
and :class:`LaunchSettings` (the orchestration-wide settings of ``launch``).

Each field is the keyword of the same name in the options table (docs/options.md; a test holds the two equal),
None meaning not given. Building one checks every value against the table, once (an ArgumentError naming the
keyword, its value and the type allowed); nothing downstream checks the keywords again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import InitVar, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agentcompass._config import GROUPS, config_layer, normalized

from .arguments import check_known, check_values

if TYPE_CHECKING:
    from agentcompass._config import ComposeInput, ResolvedRequest

PathLike = str | Path
Level = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
Progress = Literal["auto", "plain", "none"]
Callback = Callable[[Any], Any]


def _given(obj: Any) -> dict[str, Any]:
    """The fields of a request dataclass that were given (not None), Paths as str."""
    return normalized({f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)})


@dataclass(frozen=True, kw_only=True)
class EvaluationRequest:
    """One evaluation request: the keywords of ``run_evaluation`` / ``async_run_evaluation`` as one object."""

    caller: InitVar[str] = "EvaluationRequest"  # the entry point its errors name
    benchmark: str | None = None
    harness: str | None = None
    model: str | None = None
    environment: str | None = None
    config_path: PathLike | Sequence[PathLike] | None = None
    overrides: Sequence[str] | None = None
    benchmark_params: dict[str, Any] | None = None
    harness_params: dict[str, Any] | None = None
    environment_params: dict[str, Any] | None = None
    execution_params: dict[str, Any] | None = None
    model_base_url: str | None = None
    model_api_key: str | None = None
    model_api_protocol: str | list[str] | None = None
    model_params: dict[str, Any] | None = None
    model_roles: dict[str, Any] | None = None
    model_cache: Literal["off", "read_write", "read_only"] | None = None
    replay: PathLike | None = None
    on_progress: Callback | None = None
    task_concurrency: int | None = None
    results_dir: PathLike | None = None
    data_dir: PathLike | None = None
    timeout_seconds: int | None = None
    provider_limits: dict[str, int] | None = None
    env_open_qps: dict[str, float] | None = None
    progress: Progress | None = None
    log_level: Level | None = None
    file_log_level: Level | None = None
    log_file: PathLike | None = None
    auto_install_dependencies: bool | None = None
    reuse: bool | None = None
    reuse_run_id: str | None = None
    checkpoint_resume: bool | None = None
    recipe_dirs: list[PathLike] | None = None
    n_attempts: int | None = None
    max_retries: int | None = None
    retry_pattern_list: list[str] | None = None
    enabled_recipes: list[str] | None = None
    keep_environment: bool | None = None
    enable_analysis: bool | None = None
    integrity_scan: bool | None = None
    integrity_review: bool | None = None
    integrity_review_params: dict[str, Any] | None = None
    analysis_params: dict[str, Any] | None = None
    cost_limit_usd: float | None = None
    token_limit: int | None = None
    budget_policy: Literal["finish", "cancel"] | None = None
    attempt_cost_limit_usd: float | None = None
    attempt_max_model_calls: int | None = None
    attempt_max_tokens_total: int | None = None
    run_name: str | None = None
    run_id: str | None = None

    def __post_init__(self, caller: str) -> None:
        check_values(caller, {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}, "run")

    @classmethod
    def from_keywords(cls, caller: str, kwargs: dict[str, Any]) -> EvaluationRequest:
        """The request of keywords held in a dict (the CLI, ``agentcompass config``): an unknown key is an
        ArgumentError naming the nearest keyword."""
        check_known(caller, kwargs, [f.name for f in dataclasses.fields(cls)])
        return cls(caller=caller, **kwargs)

    def given(self) -> dict[str, Any]:
        return _given(self)

    def compose_input(self) -> ComposeInput:
        """What the request is composed from: component choices, config files, overrides, the other keywords as
        the explicit layer of the config."""
        from agentcompass._config import ComposeInput

        kw = self.given()
        paths = kw.get("config_path")
        return ComposeInput(
            choices={g: kw.get(g) for g in GROUPS},
            config_paths=[str(paths)] if isinstance(paths, (str, Path)) else [str(p) for p in paths or ()],
            overrides=list(kw.get("overrides") or ()),
            explicit=config_layer(kw),
        )

    def compose(self) -> ResolvedRequest:
        """The request composed and validated (Hydra, the config files, the schema, the components)."""
        from agentcompass._config import compose_request

        from .hooks import check_analysis_params

        resolved = compose_request(self.compose_input())
        check_analysis_params(resolved)
        return resolved


@dataclass(frozen=True, kw_only=True)
class LaunchSettings:
    """The orchestration-wide settings of ``launch`` / ``async_launch``, over the orchestration's own ``runtime``
    (and its config files, and the schema defaults). The same keywords of ``launch`` override these fields."""

    caller: InitVar[str] = "LaunchSettings"  # the entry point its errors name
    task_concurrency: int | None = None
    results_dir: PathLike | None = None
    data_dir: PathLike | None = None
    timeout_seconds: float | None = None
    provider_limits: dict[str, int] | None = None
    env_open_qps: dict[str, float] | None = None
    progress: Progress | None = None
    log_level: Level | None = None
    file_log_level: Level | None = None
    log_file: PathLike | None = None
    auto_install_dependencies: bool | None = None
    orchestration_cost_limit_usd: float | None = None
    orchestration_token_limit: int | None = None
    cleanup_grace_seconds: float | None = None

    def __post_init__(self, caller: str) -> None:
        check_values(caller, {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}, "launch")

    def given(self) -> dict[str, Any]:
        """The settings given, Paths as str (runtime config keys)."""
        return _given(self)

    def updated(self, caller: str, keywords: dict[str, Any]) -> LaunchSettings:
        """These settings with the keywords given (not None) replacing their fields."""
        given = {k: v for k, v in keywords.items() if v is not None}
        return dataclasses.replace(self, caller=caller, **given) if given else self
