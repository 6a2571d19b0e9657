"""The built components and shared services of one request, as attempts see them."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentcompass._config import Components, RequestConfig
from agentcompass.interfaces import AttemptContext, Benchmark, Environment, EnvironmentProvider, Harness, ModelClient

from ..record import RunStore, UsageRecord
from .pool import Pool
from .progress import Progress


@dataclass
class RequestRuntime:
    name: str
    run_id: str
    config: RequestConfig
    components: Components
    store: RunStore
    pool: Pool
    progress: Progress
    logger: logging.Logger
    slot_providers: list[str] = field(default_factory=list)
    recipes: Any = None
    executor: Any = None  # None: attempts run in this process; else an Executor (executor: ray)
    stopped: BaseException | None = None  # an error that stops the request: no attempt starts after it
    services: dict[str, Any] = field(default_factory=dict)  # started request-scoped services, by name
    budgets: list[Any] = field(default_factory=list)  # the request's Budget and the orchestration's (budget.py)
    roles: Any = None  # the request's model roles (roles.ModelRoles): ctx.model_role's clients
    scan_benchmark: str | None = None  # with execution.integrity_scan: the benchmark's name, each attempt scanned

    def admits(self) -> bool:
        """May an attempt that holds its slot start? (False: the request is stopping, or a budget is spent.)"""
        return self.stopped is None and all([b.admits() for b in self.budgets])

    def attempt_started(self, key: Any, live_usage: Callable[[], Any]) -> None:
        """The budgets watch attempt ``key`` (``live_usage()``: its usage while it runs; asked only when a budget
        watches)."""
        if self.budgets:
            usage = live_usage()
            for budget in self.budgets:
                budget.watch(key, usage)

    def attempt_ended(self, key: Any, spent: Callable[[], UsageRecord | None]) -> None:
        """Attempt ``key`` ended; ``spent()`` (what it spent in all) counts for the budgets, asked only when there
        are any."""
        if self.budgets:
            usage = spent()
            for budget in self.budgets:
                budget.finish(key, usage)

    @property
    def benchmark(self) -> Benchmark:
        return self.components.benchmark

    @property
    def harness(self) -> Harness:
        return self.components.harness

    @property
    def model(self) -> ModelClient | None:
        return self.components.model

    @property
    def provider(self) -> EnvironmentProvider:
        return self.components.environment

    async def hook(self, phase: str, env: Environment, ctx: AttemptContext) -> None:
        """Run the enabled recipes' hooks of ``phase`` (after_open, before_agent, after_agent, before_verify)."""
        if self.recipes is not None:
            await self.recipes.run_hooks(phase, env, ctx)

    def labels(self, task_id: str) -> dict[str, str]:
        return {
            "agentcompass": "1",
            "agentcompass.run_id": self.run_id,
            "agentcompass.request": self.name,
            "agentcompass.task": task_id,
        }
