"""Orchestration preflight: every request validated and its components built and tasks loaded; nothing created."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

NEW_RUN_ID = "<a new run id, made when the run starts>"


@dataclass
class RequestPreflight:
    name: str
    error: str | None = None  # "<Type>: <message>" or the composition error
    n_tasks: int = 0
    output: str = ""  # the run directory it would write (a new run's id is made when it starts: NEW_RUN_ID)
    config: dict[str, Any] = field(default_factory=dict)  # the resolved request, redacted


@dataclass
class Preflight:
    requests: list[RequestPreflight]
    task_concurrency: int

    @property
    def ok(self) -> bool:
        return all(r.error is None for r in self.requests)


def dry_run(orch: Any) -> Preflight:
    """Validate each request of a resolved orchestration, count its tasks and name its output directory."""
    from agentcompass._config import redact_config as redact
    from agentcompass._orchestrator.scheduling import Pool, Progress, RequestRun

    from .hooks import default_hooks

    out = []
    for job in orch.jobs:
        if job.error is not None:
            out.append(RequestPreflight(job.name, error=str(job.error)))
            continue
        run = RequestRun(job.resolved, job.name, Pool(1), Progress("none", 0), default_hooks())
        try:
            tasks = run.build()
        except Exception as exc:
            out.append(RequestPreflight(job.name, error=f"{type(exc).__name__}: {exc}"))
            continue
        assert run.store is not None  # build() opened it
        cfg = run.cfg
        fixed = cfg.runtime.reuse or cfg.output.run_id  # else the id made here is not the one the run will use
        output = run.store.run_dir if fixed else run.store.run_dir.parent / NEW_RUN_ID
        out.append(RequestPreflight(job.name, n_tasks=len(tasks), output=str(output), config=redact(job.resolved.data)))
    return Preflight(out, orch.task_concurrency)
