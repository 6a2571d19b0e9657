"""``agentcompass images prebuild``: build every task image of a request before it runs, on every node.

With ``execution.executor: local`` the images are built by this machine's environment provider; with ``ray``,
by every alive node of the cluster, each against its own Docker engine (images are never shipped between
nodes: each node pulls or builds its own). Takes ``run_evaluation``'s keywords (benchmark, environment,
their params, ``execution_params``...); runs no attempt.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcompass._ray.nodes import PrebuildReport

from .evaluate import compose_from_kwargs

RUN_ID = "prebuild"


def prebuild_images(**kwargs: Any) -> PrebuildReport:
    """``{"executor": "local" | "ray", "nodes": {node: {host, provider, tasks: [{task_id, image | error}],
    built, failed[, note]}}}``."""
    resolved = compose_from_kwargs(kwargs)
    config = resolved.config
    data = config.model_dump(mode="json")
    if config.execution.executor == "local":
        from agentcompass._ray.nodes import prebuild_here

        return {"executor": "local", "nodes": {"local": prebuild_here(data, RUN_ID)}}
    return asyncio.run(_on_cluster(config, data))


async def _on_cluster(config: Any, data: dict[str, Any]) -> PrebuildReport:
    from agentcompass._ray.executor import RayExecutor
    from agentcompass._ray.nodes import on_every_node

    executor = RayExecutor([config], None, logging.getLogger("agentcompass"))  # type: ignore[arg-type]
    await executor.start()
    try:
        return {"executor": "ray", "nodes": await on_every_node(executor.ray, "prebuild", data, RUN_ID)}
    finally:
        await executor.aclose()


def format_prebuild(result: PrebuildReport) -> str:
    """One line per node, then one per task that failed."""
    lines = []
    for node, r in result["nodes"].items():
        where = f"node {node[:12]}" if result["executor"] == "ray" else "this machine"
        if "error" in r and "tasks" not in r:
            lines.append(f"{where}: failed: {r['error']}")
            continue
        lines.append(
            f"{where} ({r['host']}, {r['provider']}): {r['built']} images ready, {r['failed']} failed"
            + (f"; {r['note']}" if r.get("note") else "")
        )
        lines += [f"  {t['task_id']}: {t['error']}" for t in r["tasks"] if "error" in t]
    return "\n".join(lines)
