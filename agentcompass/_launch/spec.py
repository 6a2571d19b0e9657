"""The orchestration types and the inheritance rules (defaults deep-merged under each request's own fields)."""

from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import BaseModel, Field, SecretStr, create_model, field_validator
from pydantic.fields import FieldInfo

from agentcompass._config import (
    GROUPS,
    SAFE_NAME,
    ComposeInput,
    ExecutionConfig,
    OutputConfig,
    deep_merge,
    runtime_fields,
)
from agentcompass._config import Strict as _Strict
from agentcompass._orchestrator.record import safe_name


def _optional(name: str, fields: dict[str, FieldInfo], base: type[BaseModel], doc: str) -> type[BaseModel]:
    """A model with the given schema fields, each optional (None: not set at this level) with its constraints;
    a nested model (execution.timeouts, artifacts) becomes a partial dict, deep-merged like any other."""
    defs: dict[str, Any] = {}
    for key, info in fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            annotation = dict[str, Any]
        optional = copy.copy(info)
        optional.default, optional.default_factory = None, None
        optional.json_schema_extra = None
        defs[key] = (annotation | None, optional)
    model = create_model(name, __base__=base, __doc__=doc, __module__=__name__, **defs)
    return model


class _NoConcurrency(_Strict):
    """``execution`` of the defaults or of a request: a ``task_concurrency`` here is an error naming its key
    (``defaults.execution.task_concurrency``, ``requests.0.execution.task_concurrency``)."""

    task_concurrency: Any = Field(None, exclude=True)

    @field_validator("task_concurrency")
    @classmethod
    def _no_concurrency(cls, v: Any) -> Any:
        if v is not None:
            raise ValueError(
                "task_concurrency is orchestration-level only: set the file's top-level task_concurrency "
                "(OrchestrationSpec.task_concurrency)"
            )
        return v


ExecutionSpec = _optional(
    "ExecutionSpec",
    dict(ExecutionConfig.model_fields),
    _NoConcurrency,
    "A request's (or the defaults') execution settings.",
)
RequestRuntimeSpec = _optional(
    "RequestRuntimeSpec",
    runtime_fields("request"),
    _Strict,
    "A request's (or the defaults') runtime: reuse, reuse_run_id, checkpoint_resume.",
)
OutputSpec = _optional("OutputSpec", dict(OutputConfig.model_fields), _Strict, "run_name and run_id.")
OrchestrationRuntime = _optional(
    "OrchestrationRuntime",
    runtime_fields("orchestration"),
    _Strict,
    "Orchestration-wide settings (the file's top-level ``runtime``).",
)


class OrchestrationDefaults(_Strict):
    """Components and settings shared by every request."""

    benchmark: dict[str, Any] | None = None
    harness: dict[str, Any] | None = None
    model: dict[str, Any] | None = None
    environment: dict[str, Any] | None = None
    model_roles: dict[str, dict[str, Any]] | None = None  # a benchmark's other models by role (docs/models.md)
    execution: ExecutionSpec = Field(default_factory=ExecutionSpec)
    runtime: RequestRuntimeSpec = Field(default_factory=RequestRuntimeSpec)
    output: OutputSpec = Field(default_factory=OutputSpec)

    @field_validator(*GROUPS, mode="before")
    @classmethod
    def _component(cls, v: Any) -> Any:
        if isinstance(v, str):
            return {"id": v}
        if isinstance(v, dict) and "id" in v and not isinstance(v["id"], str):
            raise ValueError(f"id must be a string, got {v['id']!r}")
        if isinstance(v, dict) and isinstance(v.get("api_key"), SecretStr):
            v = {**v, "api_key": v["api_key"].get_secret_value()}
        return v

    def layer(self) -> dict[str, Any]:
        """This level's fields as a nested dict (unset fields omitted)."""
        out = {g: copy.deepcopy(getattr(self, g)) for g in GROUPS if getattr(self, g) is not None}
        if self.model_roles is not None:
            out["model_roles"] = copy.deepcopy(self.model_roles)
        for part in ("execution", "runtime", "output"):
            values = getattr(self, part).model_dump(exclude_none=True)
            if values:
                out[part] = values
        return out


class RunRequestSpec(OrchestrationDefaults):
    """One named request; its fields override the defaults'."""

    name: str = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _directory_name(cls, v: str) -> str:
        if not SAFE_NAME.match(safe_name(v)):  # the request's default run_name, a directory of results_dir
            raise ValueError(
                "a request name must give a directory name: letters, digits and ._+@=-, starting "
                "with a letter or digit, at most 200 characters"
            )
        return v


class OrchestrationSpec(_Strict):
    version: Literal[1] = 1
    name: str = "orchestration"
    task_concurrency: int = copy.copy(runtime_fields("top")["task_concurrency"])  # the schema's field
    runtime: OrchestrationRuntime = Field(default_factory=OrchestrationRuntime)
    defaults: OrchestrationDefaults = Field(default_factory=OrchestrationDefaults)
    requests: list[RunRequestSpec] = Field(min_length=1)

    @field_validator("requests")
    @classmethod
    def _unique(cls, v: list[RunRequestSpec]) -> list[RunRequestSpec]:
        seen: set[str] = set()
        for req in v:
            if req.name in seen:
                raise ValueError(f"request name {req.name!r} is used twice; names must be unique")
            seen.add(req.name)
        return v


def merged_request(spec: OrchestrationSpec, req: RunRequestSpec) -> dict[str, Any]:
    """Inheritance: the defaults deep-merged under the request's own fields (dicts merge, other values
    and lists are replaced, so a request's ``benchmark.id`` replaces the default's choice)."""
    return deep_merge(spec.defaults.layer(), req.layer())


def compose_input(
    spec: OrchestrationSpec,
    req: RunRequestSpec,
    *,
    config_paths: list[str] | None = None,
    shared: dict[str, Any] | None = None,
) -> ComposeInput:
    """The compose input of one request: component ids as choices, everything else explicit."""
    merged = merged_request(spec, req)
    choices: dict[str, str | None] = {}
    explicit: dict[str, Any] = {}
    for group in GROUPS:
        section = dict(merged.get(group) or {})
        choices[group] = section.pop("id", None)
        if section:
            explicit[group] = section
    for part in ("execution", "output", "model_roles"):
        if part in merged:
            explicit[part] = merged[part]
    runtime = spec.runtime.model_dump(exclude_none=True)
    runtime.update(shared or {})
    runtime.update(merged.get("runtime", {}))
    runtime["task_concurrency"] = spec.task_concurrency
    explicit["runtime"] = runtime
    return ComposeInput(choices=choices, config_paths=list(config_paths or ()), explicit=explicit)
