"""A request's components on a worker node, and the runtime an attempt sees there.

The components are built from the request's resolved config exactly as the driver builds them
(``agentcompass._config.build``), with this node's ``data_dir``; the benchmark loads its tasks here. The runtime's
pool holds no slot (the driver holds it); when the request has cluster-wide limits, it asks the driver's services
actor before each environment open of a provider with an ``env_open_qps``, and the model is wrapped so that each
call holds one token of its provider's cluster-wide limit. Without such limits an attempt makes no call to the
actor (there is none).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypedDict

from agentcompass._config import (
    Components,
    RequestConfig,
    build_components,
    data_dir,
    register_config_secrets,
    register_secret,
)
from agentcompass._deps import auto_install_scope
from agentcompass._orchestrator.record import LOGGER
from agentcompass._orchestrator.scheduling import ModelRoles, RequestRuntime
from agentcompass.errors import ConfigError, SandboxError
from agentcompass.interfaces import MODEL_ROLES, ComponentContext, Task


@dataclass
class Parts:
    config: RequestConfig
    components: Components
    tasks: dict[str, Task]
    roles: Any = None  # the request's model roles on this node (ModelRoles), built on first use

    @property
    def provider(self) -> Any:
        return self.components.environment

    def task(self, task_id: str) -> Task:
        try:
            return self.tasks[task_id]
        except KeyError:
            raise ConfigError(
                f"task {task_id!r} is not among the tasks the benchmark loads on this node "
                f"({len(self.tasks)} tasks): every node must see the same dataset"
            ) from None


def component_context(config: RequestConfig, run_id: str, name: str) -> ComponentContext:
    return ComponentContext(
        data_dir=data_dir(config.runtime.data_dir),
        run_id=run_id,
        request=name,
        benchmark_id=str(config.benchmark.id),
        model_id=config.model.id or "none",
        harness_id=str(config.harness.id),
        environment_id=str(config.environment.id),
        auto_install_dependencies=config.runtime.auto_install_dependencies,
        logger=LOGGER.getChild("run"),
    )


class SharedRequest(TypedDict):
    """What every attempt of one request on the cluster shares: the driver puts it in the object store once, each
    worker process fetches it on the request's first attempt there."""

    config: dict[str, Any]  # the resolved request (RequestConfig, as JSON)
    run_id: str
    run_name: str
    name: str  # the request's
    recipes: Any  # the request's recipe hooks, or None
    model_gate: str | None  # the model's provider when it has a cluster-wide limit
    rated: list[str]  # the environment providers with an env_open_qps
    services: Any  # the driver's services actor (None when neither is set)
    worker_services: Sequence[Callable[[Any], Any]]  # factories of the worker process's services


def build_parts(shared: SharedRequest) -> Parts:
    """Build the request's components on this node and load its tasks (blocking)."""
    data = shared["config"]
    config = RequestConfig.model_validate(data)
    register_secret(data["model"].get("api_key"))
    register_config_secrets(data)
    ctx = component_context(config, shared["run_id"], shared["name"])
    with auto_install_scope(config.runtime.auto_install_dependencies):
        components = build_components(data, ctx)
        tasks = {t.id: t for t in components.benchmark.load()}
    for role in config.model_roles.values():
        register_secret(role.get("api_key") if isinstance(role, dict) else None)
    roles = ModelRoles(data["model"], config.model_roles, MODEL_ROLES.of(components.benchmark), ctx)
    return Parts(config, components, tasks, roles)


class WorkerPool:
    """No slot (the driver holds the attempt's slot); environment opens of a provider with an ``env_open_qps``
    wait for the driver's rate limit, the others go at once."""

    def __init__(self, services: Any, rated: list[str]) -> None:
        self.services, self.rated = services, frozenset(rated)

    @asynccontextmanager
    async def slot(self, providers: list[str]) -> AsyncIterator[None]:
        yield

    async def before_open(self, provider: str) -> None:
        if provider in self.rated:
            await self.services.before_open.remote(provider)


class GatedModel:
    """The request's model client, each call holding one token of the provider's cluster-wide limit (leased to
    the attempt, so that the driver can hand back the tokens of an attempt whose node died)."""

    def __init__(self, inner: Any, services: Any, provider: str, holder: str) -> None:
        self._inner, self._services, self._provider, self._holder = inner, services, provider, holder

    def fork(self, attempt: Any = None) -> GatedModel:
        return GatedModel(self._inner.fork(attempt), self._services, self._provider, self._holder)

    async def forward(self, request: Any) -> Any:
        """A gateway call holds one token of the provider's cluster-wide limit until its answer is sent."""
        if not await self._services.acquire.remote(self._provider, self._holder):
            raise SandboxError(f"model provider {self._provider!r}: the attempt was given up by the driver")
        try:
            answer = await self._inner.forward(request)
        except BaseException:
            self._services.release.remote(self._provider, self._holder)
            raise
        close = answer.aclose

        async def aclose(error: BaseException | None = None) -> None:
            try:
                await close(error)
            finally:
                self._services.release.remote(self._provider, self._holder)

        answer.aclose = aclose
        return answer

    async def complete(self, messages: list[dict[str, Any]], **params: Any) -> Any:
        if not await self._services.acquire.remote(self._provider, self._holder):
            raise SandboxError(f"model provider {self._provider!r}: the attempt was given up by the driver")
        try:
            return await self._inner.complete(messages, **params)
        finally:
            self._services.release.remote(self._provider, self._holder)  # sent even when cancelled

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def worker_runtime(shared: SharedRequest, key: str, parts: Parts, store: Any, progress: Any) -> RequestRuntime:
    """The runtime of attempt ``key`` on this node (no executor: the attempt runs right here); the worker
    process's services (:meth:`~.state.WorkerState.services`) are added by the caller."""
    components = parts.components
    if components.model is not None and shared.get("model_gate"):
        gated = GatedModel(components.model, shared["services"], shared["model_gate"], key)
        components = dataclasses.replace(components, model=gated)  # type: ignore[arg-type]
    return RequestRuntime(
        shared["name"],
        shared["run_id"],
        parts.config,
        components,
        store,
        WorkerPool(shared["services"], shared["rated"]),
        progress,
        logging.getLogger("agentcompass.run"),
        slot_providers=[],
        recipes=shared.get("recipes"),
        roles=parts.roles,
    )
