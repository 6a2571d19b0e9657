"""The ``local`` environment: commands run on the host in a workspace directory, under a supervisor process that
tracks every process they start (see :mod:`.environment`; NOT a security sandbox, use ``docker`` for untrusted
agents). Its parts: :mod:`.commands` (running a command), :mod:`.supervise` / :mod:`.supervisor` /
:mod:`.zygote` (the supervisor and the process tree it keeps, :mod:`.proctree`), :mod:`.procs` (output capture),
:mod:`.fs` (files), :mod:`.cgroup` (resource limits), :mod:`.beneath` (paths kept inside the workspace) and
:mod:`.hide` (the host paths an agent must not see)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .environment import LocalConfig, LocalEnvironment, LocalProvider

__all__ = ["LocalConfig", "LocalEnvironment", "LocalProvider"]


def __getattr__(name: str) -> Any:
    """The environment's classes, imported on first use (the supervisor's modules import this package and must
    stay light)."""
    if name in __all__:
        from . import environment

        return vars(environment)[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
