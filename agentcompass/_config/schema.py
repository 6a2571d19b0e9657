"""Pydantic v2 models validating the composed request config (components are validated by their own classes)."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+@=-]{0,199}$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RuntimeConfig(_Strict):
    task_concurrency: int = Field(4, ge=1, description="max attempts running at once, retries included")
    results_dir: str = Field("outputs", description="root of run directories")
    data_dir: str | None = Field(None, description="datasets and caches")
    timeout_seconds: float | None = Field(None, gt=0, description="wall-clock bound on the whole request")
    provider_limits: dict[str, int] = Field(default_factory=dict)
    env_open_qps: dict[str, float] = Field(default_factory=dict)
    progress: Literal["auto", "plain", "none"] = "auto"
    log_level: LogLevel = "INFO"
    file_log_level: LogLevel = "DEBUG"
    log_file: str | None = None
    auto_install_dependencies: bool = False
    reuse: bool = False
    reuse_run_id: str | None = None
    checkpoint_resume: bool = True
    recipe_dirs: list[str] = Field(default_factory=list)
    cleanup_grace_seconds: float = Field(10, ge=0)

    @field_validator("provider_limits")
    @classmethod
    def _limits(cls, v: dict[str, int]) -> dict[str, int]:
        for key, n in v.items():
            if n < 1:
                raise ValueError(f"provider limit for {key!r} must be >= 1, got {n}")
        return v

    @field_validator("env_open_qps")
    @classmethod
    def _qps(cls, v: dict[str, float]) -> dict[str, float]:
        for key, q in v.items():
            if not q > 0:
                raise ValueError(f"env_open_qps for {key!r} must be > 0, got {q}")
        return v


class TimeoutsConfig(_Strict):
    env_open: float | None = Field(900, gt=0)
    agent: float | None = Field(None, gt=0)
    verifier: float | None = Field(None, gt=0)
    close: float = Field(60, gt=0)


class PrepareItem(_Strict):
    src: str
    dst: str


class ArtifactsConfig(_Strict):
    prepare: list[PrepareItem] = Field(default_factory=list)
    save: list[str] = Field(default_factory=list)
    max_files: int = Field(200, ge=0)
    max_file_bytes: int = Field(10 * 2**20, ge=0)
    max_total_bytes: int = Field(100 * 2**20, ge=0)


class ExecutionConfig(_Strict):
    max_retries: int = Field(0, ge=0)
    retry_pattern_list: list[str] = Field(default_factory=list)
    enabled_recipes: list[str] = Field(default_factory=list)
    keep_environment: bool = False
    enable_analysis: bool = False
    analysis_params: dict[str, Any] = Field(default_factory=dict)
    timeouts: TimeoutsConfig = Field(default_factory=TimeoutsConfig)
    artifacts: ArtifactsConfig = Field(default_factory=ArtifactsConfig)

    @field_validator("retry_pattern_list")
    @classmethod
    def _patterns(cls, v: list[str]) -> list[str]:
        for pattern in v:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"invalid regex {pattern!r}: {exc}") from None
        return v


class OutputConfig(_Strict):
    run_name: str | None = None
    run_id: str | None = None

    @field_validator("run_name", "run_id")
    @classmethod
    def _safe(cls, v: str | None) -> str | None:
        if v is not None and not _SAFE_NAME.match(v):
            raise ValueError("must be 1-200 characters of letters, digits and ._+@=- (a directory name)")
        return v


class RequestConfig(_Strict):
    """The composed config of one request. Component sections are validated by their classes."""

    benchmark: dict[str, Any]
    harness: dict[str, Any]
    model: dict[str, Any]
    environment: dict[str, Any]
    runtime: RuntimeConfig = Field(default_factory=RuntimeConfig)
    execution: ExecutionConfig = Field(default_factory=ExecutionConfig)
    output: OutputConfig = Field(default_factory=OutputConfig)
    recipes: dict[str, Any] = Field(default_factory=dict)
