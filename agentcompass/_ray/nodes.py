"""Work done once on every alive node of the cluster: cleanup of a killed run's environments, image prebuilds.

Each node runs one Ray task pinned to it (node affinity, not soft) that builds the request's environment
provider (and, to prebuild, its benchmark and tasks) from the resolved config, with that node's data_dir and
Docker engine.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any, TypedDict

from agentcompass._config import RequestConfig, build
from agentcompass._deps import auto_install_scope
from agentcompass.interfaces import PREBUILD

from .parts import component_context


class PrebuiltTask(TypedDict, total=False):
    """One task's image, prebuilt (``image``) or not (``error``)."""

    task_id: str
    image: str
    error: str


class NodePrebuild(TypedDict, total=False):
    """What a node prebuilt (:func:`prebuild_here`); only ``error`` when the node was lost meanwhile."""

    host: str
    provider: str
    tasks: list[PrebuiltTask]
    note: str  # a provider with nothing to build says so
    built: int
    failed: int
    error: str


class PrebuildReport(TypedDict):
    """``agentcompass images prebuild``'s result: the executor and what each node prebuilt."""

    executor: str  # local | ray
    nodes: dict[str, NodePrebuild]


def _cleanup(data: dict[str, Any], run_id: str) -> int:
    config = RequestConfig.model_validate(data)
    ctx = component_context(config, run_id, "cleanup")
    provider = build("environment", data["environment"], ctx)

    async def go() -> int:
        try:
            return await provider.cleanup(run_id)
        finally:
            await provider.aclose()

    return asyncio.run(go())


def prebuild_here(data: dict[str, Any], run_id: str) -> NodePrebuild:
    """Resolve (pull or build) the environment image of every task of the request on this machine.

    Returns ``{"host", "provider", "tasks": [{task_id, image | error}], "built": n, "failed": n}``; a provider
    with nothing to build (``local``, ``memory``) says so in ``note``.
    """
    config = RequestConfig.model_validate(data)
    ctx = component_context(config, run_id, "prebuild")
    with auto_install_scope(config.runtime.auto_install_dependencies):
        benchmark = build("benchmark", data["benchmark"], ctx)
        provider = build("environment", data["environment"], ctx)
        tasks = benchmark.load()
    out: NodePrebuild = {"host": socket.gethostname(), "provider": provider.name, "tasks": []}
    prebuild = PREBUILD.of(provider)
    if prebuild is None:
        out["note"] = f"environment provider {provider.name!r} has no images to build"
        out["built"], out["failed"] = 0, 0
        return out

    async def one(task: Any) -> PrebuiltTask:
        try:
            return {"task_id": task.id, "image": await prebuild(benchmark.env_spec(task))}
        except Exception as exc:
            return {
                "task_id": task.id,
                "error": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
            }

    async def go() -> list[PrebuiltTask]:
        try:
            return [await one(t) for t in tasks]
        finally:
            await provider.aclose()

    out["tasks"] = done = asyncio.run(go())
    out["built"] = built = sum(1 for t in done if "image" in t)
    out["failed"] = len(done) - built
    return out


_ACTIONS = {"cleanup": _cleanup, "prebuild": prebuild_here}


def _on_node(action: str, data: dict[str, Any], arg: str) -> Any:
    return _ACTIONS[action](data, arg)


async def on_every_node(ray: Any, action: str, data: dict[str, Any], arg: str) -> dict[str, Any]:
    """``{node_id: result}`` of ``action`` run on every alive node (a node lost meanwhile: its error text)."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = [n["NodeID"] for n in ray.nodes() if n.get("Alive")]
    fn = ray.remote(_on_node)
    refs = {
        node: fn.options(
            num_cpus=0, max_retries=0, scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)
        ).remote(action, data, arg)
        for node in nodes
    }
    out: dict[str, Any] = {}
    for node, ref in refs.items():
        try:
            out[node] = await ref
        except Exception as exc:
            out[node] = (
                {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"}
                if action == "prebuild"
                else 0
            )
    return out
