"""Ending every process an agent left in a container (``interfaces.END_PROCESSES``).

The container's processes are listed by the engine (``docker top``: the host's ``ps``, nothing inside the
container the agent could have replaced). The ones there when the environment opened (Docker's init and the
keep-alive command, or a compose service's own command) are its keepers; any other process alive after the agent
phase was started by the agent (a detached, ``nohup`` / ``setsid``, tmux or background process). When there is
one, the container is restarted at once (SIGKILL, then started again): the kernel ends every process of its PID
namespace however it left its parent, and the file system stays as the agent left it.
"""

from __future__ import annotations

from typing import Any

MAX_LISTED = 50  # processes named in the record of one attempt


def processes(top: dict[str, Any]) -> list[tuple[str, str]]:
    """(host pid, command line) of every process of a ``docker top`` answer."""
    titles = list(top.get("Titles") or [])
    pid_at = titles.index("PID") if "PID" in titles else 1
    cmd_at = titles.index("CMD") if "CMD" in titles else (titles.index("COMMAND") if "COMMAND" in titles else -1)
    return [(str(row[pid_at]), str(row[cmd_at])) for row in top.get("Processes") or [] if len(row) > pid_at]


async def keepers(run: Any, api: Any, container_id: str) -> set[str]:
    """The host pids of the container's processes now (called when it opens, before anything else runs there)."""
    return {pid for pid, _cmd in processes(await run(api.top, container_id))}


async def end_others(run: Any, api: Any, container_id: str, keep: set[str]) -> tuple[list[str], set[str]]:
    """End every process but ``keep`` by restarting the container when there is one. Returns the processes that
    were ended (``"<command line>"``, at most :data:`MAX_LISTED`) and the new keepers."""
    others = [cmd for pid, cmd in processes(await run(api.top, container_id)) if pid not in keep]
    if not others:
        return [], keep
    await run(api.restart, container_id, timeout=0)
    return others[:MAX_LISTED], await keepers(run, api, container_id)
