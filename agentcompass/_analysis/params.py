"""``analysis_params``: validated with pydantic (an unknown key is a ConfigError naming the valid keys)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agentcompass.errors import ConfigError


class AnalysisParams(BaseModel):
    """Settings of the post-run analysis (``execution.analysis_params``, CLI ``--analysis-params``)."""

    model_config = ConfigDict(extra="forbid")

    model: dict[str, Any] | str | None = Field(
        None,
        description="The judge that labels failed attempts: a model id (a file in conf/model/ or a model "
        "name) or a mapping with the fields of `model` (id, base_url, api_key, api_protocol, "
        "params, prices...). None: no judge.",
    )
    top_n: int = Field(10, ge=1, description="How many error groups, slowest and costliest tasks to list.")
    max_judge_attempts: int = Field(
        50,
        ge=0,
        description="At most this many failed attempts are judged "
        "(in task id order); the others are listed as not judged.",
    )
    judge_concurrency: int = Field(4, ge=1, description="Judge calls in flight at once.")
    judge_scope: Literal["final", "all"] = Field(
        "final",
        description="final: the final attempt of each task that did not resolve; all: every attempt "
        "that did not resolve (retried ones included).",
    )
    judge_max_chars: int = Field(12000, ge=1000, description="Budget of evidence text sent per judged attempt.")

    @field_validator("model")
    @classmethod
    def _model(cls, value: Any) -> Any:
        if isinstance(value, dict) and not value.get("id"):
            raise ValueError("the judge model mapping needs an 'id' (a conf/model id or a model name)")
        if isinstance(value, str) and not value.strip():
            raise ValueError("empty judge model id")
        return value


def parse_params(raw: dict[str, Any] | None) -> AnalysisParams:
    from pydantic import ValidationError

    from agentcompass._config import validation_error

    if raw is not None and not isinstance(raw, dict):
        raise ConfigError(f"analysis_params must be a dict (CLI: a JSON object), got {type(raw).__name__}")
    try:
        return AnalysisParams.model_validate(raw or {})
    except ValidationError as exc:
        raise validation_error(exc, "analysis_params", sorted(AnalysisParams.model_fields)) from None
