"""Orchestration files and specs -> a resolved Orchestration (every request composed through the sweep)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agentcompass._config import ResolvedRequest, validation_error, with_runtime
from agentcompass._orchestrator.record import safe_name
from agentcompass.errors import ConfigError

from .run import Orchestration, orchestration_runtime
from .spec import OrchestrationSpec, compose_input
from .sweep import JOB_KEY, Job, SweepHandle, run_sweep


def load_spec_file(path: str | Path) -> OrchestrationSpec:
    """Read a YAML or JSON orchestration file; any problem is a ConfigError naming the file."""
    import yaml

    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"orchestration file {str(path)!r} does not exist")
    text = p.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if p.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        first = str(exc).strip().splitlines()[0]
        raise ConfigError(f"orchestration file {str(path)!r} cannot be parsed: {first}") from None
    return validate_spec(data, str(path))


def validate_spec(data: Any, where: str = "orchestration") -> OrchestrationSpec:
    if isinstance(data, OrchestrationSpec):
        return data
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping with version, requests..., got {type(data).__name__}")
    try:
        return OrchestrationSpec.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, where, sorted(OrchestrationSpec.model_fields)) from None


def resolve_orchestration(
    spec: OrchestrationSpec | dict[str, Any],
    *,
    config_path: str | Path | Sequence[str | Path] | None = None,
    shared: dict[str, Any] | None = None,
    check: Callable[[ResolvedRequest], None] | None = None,
) -> Orchestration:
    """Compose every request (as one Hydra multirun through the agentcompass launcher); run nothing.

    ``shared``: orchestration-wide runtime values (the ``launch()`` keywords) over the spec's ``runtime``;
    ``check``: further validation of each composed request (a failure is that request's error)."""
    spec = validate_spec(spec)
    shared = dict(shared or {})
    if "task_concurrency" in shared:
        spec = spec.model_copy(update={"task_concurrency": shared.pop("task_concurrency")})
    paths = [str(config_path)] if isinstance(config_path, (str, Path)) else [str(p) for p in config_path or ()]
    names = [r.name for r in spec.requests]

    def to_job(number: int, overrides: list[str]) -> Job:  # job number i of the sweep is request i
        req = spec.requests[number]
        inp = compose_input(spec, req, config_paths=paths, shared=shared)
        inp.explicit.setdefault("output", {}).setdefault("run_name", safe_name(req.name))
        return Job(name=req.name, inp=inp)

    handle = SweepHandle(to_job=to_job, check=check or (lambda resolved: None))
    jobs = run_sweep(handle, [f"+{JOB_KEY}={','.join(str(i) for i in range(len(names)))}"])
    explicit = {**spec.runtime.model_dump(exclude_none=True), **shared, "task_concurrency": spec.task_concurrency}
    return Orchestration(spec.name, jobs, orchestration_runtime(jobs, explicit))


def apply_runtime(orch: Orchestration, shared: dict[str, Any]) -> Orchestration:
    """A copy of a resolved orchestration with orchestration-wide runtime values replaced, in the
    orchestration's settings and in each request's config (``task_concurrency`` sizes the pool)."""
    if not shared:
        return orch
    jobs = []
    for job in orch.jobs:
        updates = {**shared, "task_concurrency": shared.get("task_concurrency", orch.task_concurrency)}
        resolved = with_runtime(job.resolved, updates) if job.resolved is not None else None
        jobs.append(dataclasses.replace(job, resolved=resolved))
    return Orchestration(orch.name, jobs, orchestration_runtime([], {**orch.runtime.model_dump(), **shared}))
