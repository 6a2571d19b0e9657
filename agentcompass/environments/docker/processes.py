"""Ending every process an agent left in a container (``interfaces.END_PROCESSES``).

The container's processes are listed by the engine (``docker top``: the host's ``ps``, nothing inside the
container the agent could have replaced). Its keepers are Docker's init (the first process of the container) and
the tree of the init's first child (the keep-alive command, or a compose service's own command with what it
started); every other process was started by the agent: what a command left running is re-parented to the init
(detached, ``nohup`` / ``setsid``, tmux, background), or still hangs from its exec. When there is one, the
container is restarted at once (SIGKILL, then started again): the kernel ends every process of its PID namespace
however it left its parent, and the file system stays as the agent left it.
"""

from __future__ import annotations

from typing import Any

from agentcompass.environments.docker.shapes import TopAnswer

MAX_LISTED = 50  # processes named in the record of one attempt


def _rows(top: TopAnswer) -> list[tuple[int, int, str]]:
    """(pid, ppid, command line) of every process of a ``docker top`` answer (host pids)."""
    titles = list(top.get("Titles") or [])
    at = {name: titles.index(name) for name in ("PID", "PPID", "CMD", "COMMAND") if name in titles}
    cmd = at.get("CMD", at.get("COMMAND", len(titles) - 1))
    out = []
    for row in top.get("Processes") or []:
        try:
            out.append((int(row[at["PID"]]), int(row[at["PPID"]]), str(row[cmd])))
        except (KeyError, IndexError, ValueError):
            continue
    return out


def others(top: TopAnswer) -> list[str]:
    """The command lines of the processes that are not the container's keepers."""
    rows = _rows(top)
    pids = {pid for pid, _, _ in rows}
    roots = sorted(pid for pid, ppid, _ in rows if ppid not in pids)
    if not roots:
        return []
    init = roots[0]
    children: dict[int, list[int]] = {}
    for pid, ppid, _ in rows:
        children.setdefault(ppid, []).append(pid)
    keep, todo = {init}, sorted(children.get(init, []))[:1]
    while todo:
        pid = todo.pop()
        keep.add(pid)
        todo += children.get(pid, [])
    return [cmd for pid, _, cmd in sorted(rows) if pid not in keep]


async def end_others(run: Any, api: Any, container_id: str) -> list[str]:
    """End every process but the keepers, by restarting the container when there is one; the command lines
    ended (at most :data:`MAX_LISTED`)."""
    found = others(await run(api.top, container_id))
    if found:
        await run(api.restart, container_id, timeout=0)
    return found[:MAX_LISTED]
