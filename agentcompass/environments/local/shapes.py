"""The documents of the local environment: the workspace marker file, the hide request and the supervisor's
messages (the protocol of :mod:`.supervisor`, marshalled over its socket)."""

from __future__ import annotations

from typing import TypedDict


class WorkspaceMarker(TypedDict):
    """The marker file beside a workspace (``<workspace>.json``): whose it is, and whether cleanup may take it."""

    run_id: str
    task_id: str
    pid: int
    pid_start_ticks: int | None
    created: float
    kept: bool
    cgroup: str | None


class HideSpec(TypedDict):
    """What a local environment's commands must not see (:func:`.hide.hide`'s ``spec``), sent with ``fork``."""

    paths: list[str]
    workspace: str
    spare: list[str]
    pids: list[int]


class SupervisorMessage(TypedDict, total=False):
    """A message from a supervisor or the zygote (the protocol of :mod:`.supervisor`), keyed by ``op``."""

    op: str
    id: int
    pid: int
    status: int
    error: str
    ended: list[str]
    left: list[int]
    cgroup_error: str
    hidden: list[str]
    hide_error: str
