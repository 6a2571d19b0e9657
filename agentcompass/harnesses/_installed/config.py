"""The parameters every harness of a published agent program takes (``harness_params``)."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class InstalledAgentConfig(BaseModel):
    """Common fields; each harness subclasses it with its own ``version`` default and ``MODEL_PARAMS``."""

    model_config = ConfigDict(extra="forbid")

    # model_params key -> what it sets in the agent (documented per harness); a key not listed is an error
    MODEL_PARAMS: ClassVar[dict[str, str]] = {}

    version: str = Field(
        "", description="The agent's published version (default: the version this harness was tested with)."
    )
    model_params: dict[str, Any] = Field(
        default_factory=dict,
        description="Settings of the agent's own model calls (reasoning effort, output tokens...), mapped to the "
        "agent's flags or variables; the valid keys depend on the agent.",
    )
    max_turns: int | None = Field(None, ge=1, description="The agent's own turn limit, where it has one.")
    extra_args: list[str] = Field(default_factory=list, description="More command-line arguments, passed as given.")
    env: dict[str, str] = Field(default_factory=dict, description="More environment variables of the agent process.")
    disable_web_search: bool = Field(
        True, description="Turn the agent's hosted or native web search and fetch tools off (they need the internet)."
    )
    auto_install: bool = Field(
        False, description="Fetch a build missing from the cache even without --auto-install-dependencies."
    )

    @field_validator("version")
    @classmethod
    def _version(cls, v: str) -> str:
        if v and not re.match(r"^[0-9A-Za-z][0-9A-Za-z.+_-]*$", v):
            raise ValueError(f"version must be an exact published version such as '1.2.3', got {v!r}")
        return v

    @field_validator("env")
    @classmethod
    def _env(cls, v: dict[str, str]) -> dict[str, str]:
        for name in v:
            if not _ENV_NAME.match(name):
                raise ValueError(f"env: {name!r} is not a valid environment variable name")
        return {k: str(val) for k, val in v.items()}

    @model_validator(mode="after")
    def _model_params(self) -> InstalledAgentConfig:
        unknown = sorted(set(self.model_params) - set(self.MODEL_PARAMS))
        if unknown:
            valid = ", ".join(f"{k} ({doc})" for k, doc in self.MODEL_PARAMS.items()) or "none"
            raise ValueError(f"model_params: unknown key(s) {unknown}; valid keys: {valid}")
        return self
