"""Where the model gateway can listen for a container without internet: its own network namespace.

A container without internet has network mode ``none``, or only internal networks (a compose task without
network). Its main process's ``/proc/<pid>/ns/net`` is given when that process is visible from here as the
container's (same machine and PID namespace as the engine: its cgroup names the container); else None.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any


async def offline_namespace(run: Callable[..., Awaitable[Any]], api: Any, container_id: str) -> str | None:
    info = await run(api.inspect_container, container_id)
    mode = (info.get("HostConfig") or {}).get("NetworkMode")
    networks = (info.get("NetworkSettings") or {}).get("Networks") or {}
    if mode != "none":
        if not networks:
            return None
        for name in networks:
            net = await run(api.inspect_network, name)
            if not net.get("Internal"):
                return None  # a network with a way out: the gateway listens on its gateway address
    return own_namespace(int((info.get("State") or {}).get("Pid") or 0), container_id)


def own_namespace(pid: int, container_id: str) -> str | None:
    """``/proc/<pid>/ns/net`` when process ``pid`` here is the container's (its cgroup names the container)."""
    if pid <= 0:
        return None
    try:
        cgroup = Path(f"/proc/{pid}/cgroup").read_text()
    except OSError:
        return None
    return f"/proc/{pid}/ns/net" if container_id in cgroup else None
