# Generated from the options table (agentcompass/_config/schema.py) by scripts/generate.py; do not edit.
"""agentcompass: evaluate LLM agents (a model driven by a harness) on agentic benchmarks in sandboxes."""

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from agentcompass._launch import Orchestration as Orchestration
from agentcompass._launch import OrchestrationDefaults as OrchestrationDefaults
from agentcompass._launch import OrchestrationResult as OrchestrationResult
from agentcompass._launch import OrchestrationSpec as OrchestrationSpec
from agentcompass._launch import RequestOutcome as RequestOutcome
from agentcompass._launch import RunRequestSpec as RunRequestSpec
from agentcompass._orchestrator.result import RunResult as RunResult
from agentcompass._sdk import audit as audit
from agentcompass._sdk import compare_runs as compare_runs
from agentcompass._sdk import format_comparison as format_comparison
from agentcompass._sdk import list_components as list_components
from agentcompass._sdk import list_tasks as list_tasks
from agentcompass._sdk import scan_run as scan_run
from agentcompass.errors import AgentCompassError as AgentCompassError
from agentcompass.errors import AgentError as AgentError
from agentcompass.errors import ArgumentError as ArgumentError
from agentcompass.errors import ConfigError as ConfigError
from agentcompass.errors import DatasetError as DatasetError
from agentcompass.errors import DependencyError as DependencyError
from agentcompass.errors import EngineUnavailableError as EngineUnavailableError
from agentcompass.errors import EvaluationFailedError as EvaluationFailedError
from agentcompass.errors import ImageError as ImageError
from agentcompass.errors import ModelEndpointDownError as ModelEndpointDownError
from agentcompass.errors import ModelError as ModelError
from agentcompass.errors import NotSupportedYetError as NotSupportedYetError
from agentcompass.errors import OutOfMemoryError as OutOfMemoryError
from agentcompass.errors import RunInUseError as RunInUseError
from agentcompass.errors import RunTimeoutError as RunTimeoutError
from agentcompass.errors import SandboxError as SandboxError
from agentcompass.errors import StorageError as StorageError
from agentcompass.errors import UnknownComponentError as UnknownComponentError
from agentcompass.errors import VerifierError as VerifierError
from agentcompass.interfaces import AttemptStatus as AttemptStatus
from agentcompass.interfaces import ExitStatus as ExitStatus
from agentcompass.interfaces import RunStatus as RunStatus

__version__: str
__all__ = [
    "run_evaluation",
    "async_run_evaluation",
    "launch",
    "async_launch",
    "compare_runs",
    "format_comparison",
    "list_components",
    "list_tasks",
    "audit",
    "scan_run",
    "OrchestrationSpec",
    "OrchestrationDefaults",
    "RunRequestSpec",
    "OrchestrationResult",
    "Orchestration",
    "RequestOutcome",
    "RunResult",
    "AttemptStatus",
    "RunStatus",
    "ExitStatus",
    "AgentCompassError",
    "ConfigError",
    "UnknownComponentError",
    "NotSupportedYetError",
    "DependencyError",
    "DatasetError",
    "SandboxError",
    "ImageError",
    "OutOfMemoryError",
    "EngineUnavailableError",
    "StorageError",
    "ModelError",
    "AgentError",
    "VerifierError",
    "EvaluationFailedError",
    "RunTimeoutError",
    "ArgumentError",
    "RunInUseError",
    "ModelEndpointDownError",
    "__version__",
]

def run_evaluation(
    *,
    benchmark: str | None = None,
    harness: str | None = None,
    model: str | None = None,
    environment: str | None = None,
    config_path: str | Path | Sequence[str | Path] | None = None,
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
    replay: str | Path | None = None,
    on_progress: Callable[[Any], Any] | None = None,
    task_concurrency: int | None = None,
    results_dir: str | Path | None = None,
    data_dir: str | Path | None = None,
    timeout_seconds: int | None = None,
    provider_limits: dict[str, int] | None = None,
    env_open_qps: dict[str, float] | None = None,
    progress: Literal["auto", "plain", "none"] | None = None,
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] | None = None,
    file_log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] | None = None,
    log_file: str | Path | None = None,
    auto_install_dependencies: bool | None = None,
    reuse: bool | None = None,
    reuse_run_id: str | None = None,
    checkpoint_resume: bool | None = None,
    recipe_dirs: list[str | Path] | None = None,
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
) -> RunResult: ...
async def async_run_evaluation(
    *,
    benchmark: str | None = None,
    harness: str | None = None,
    model: str | None = None,
    environment: str | None = None,
    config_path: str | Path | Sequence[str | Path] | None = None,
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
    replay: str | Path | None = None,
    on_progress: Callable[[Any], Any] | None = None,
    task_concurrency: int | None = None,
    results_dir: str | Path | None = None,
    data_dir: str | Path | None = None,
    timeout_seconds: int | None = None,
    provider_limits: dict[str, int] | None = None,
    env_open_qps: dict[str, float] | None = None,
    progress: Literal["auto", "plain", "none"] | None = None,
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] | None = None,
    file_log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] | None = None,
    log_file: str | Path | None = None,
    auto_install_dependencies: bool | None = None,
    reuse: bool | None = None,
    reuse_run_id: str | None = None,
    checkpoint_resume: bool | None = None,
    recipe_dirs: list[str | Path] | None = None,
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
) -> RunResult: ...
def launch(
    orchestration: OrchestrationSpec | Orchestration | dict[str, Any],
    *,
    config_path: str | Path | Sequence[str | Path] | None = None,
    on_progress: Callable[[Any], Any] | None = None,
    on_request_finished: Callable[[Any], Any] | None = None,
    task_concurrency: int | None = None,
    results_dir: str | Path | None = None,
    data_dir: str | Path | None = None,
    timeout_seconds: float | None = None,
    provider_limits: dict[str, int] | None = None,
    env_open_qps: dict[str, float] | None = None,
    progress: Literal["auto", "plain", "none"] | None = None,
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] | None = None,
    file_log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] | None = None,
    log_file: str | Path | None = None,
    auto_install_dependencies: bool | None = None,
    orchestration_cost_limit_usd: float | None = None,
    orchestration_token_limit: int | None = None,
    cleanup_grace_seconds: float | None = None,
) -> OrchestrationResult: ...
async def async_launch(
    orchestration: OrchestrationSpec | Orchestration | dict[str, Any],
    *,
    config_path: str | Path | Sequence[str | Path] | None = None,
    on_progress: Callable[[Any], Any] | None = None,
    on_request_finished: Callable[[Any], Any] | None = None,
    task_concurrency: int | None = None,
    results_dir: str | Path | None = None,
    data_dir: str | Path | None = None,
    timeout_seconds: float | None = None,
    provider_limits: dict[str, int] | None = None,
    env_open_qps: dict[str, float] | None = None,
    progress: Literal["auto", "plain", "none"] | None = None,
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] | None = None,
    file_log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] | None = None,
    log_file: str | Path | None = None,
    auto_install_dependencies: bool | None = None,
    orchestration_cost_limit_usd: float | None = None,
    orchestration_token_limit: int | None = None,
    cleanup_grace_seconds: float | None = None,
) -> OrchestrationResult: ...
