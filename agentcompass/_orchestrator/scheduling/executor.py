"""Where attempts run: in this process (``execution.executor: local``, no executor object) or elsewhere (``ray``).

An :class:`Executor` runs whole attempts (open environment, agent, verify, close) somewhere else while the
driver keeps everything that must be global: the pool (an attempt holds its slot here for its whole life),
retries, progress, metrics and every write to the run directory. The orchestrator never imports one: the
SDK hands a factory in through :class:`~agentcompass._orchestrator.scheduling.hooks.Hooks`. One executor serves every
request of a run or an orchestration, so their attempts share one pool across the cluster.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from agentcompass._config import RequestConfig
from agentcompass.errors import ConfigError
from agentcompass.interfaces import AgentResult, Task

from .frame import AttemptFrame as Frame
from .pool import Pool
from .runtime import RequestRuntime


class Executor(Protocol):
    """Runs attempts away from the driver; made by a factory ``(kind, configs, pool, logger) -> Executor``
    (``Hooks.executor``; ``kind`` is ``execution.executor``, e.g. ``ray``)."""

    kind: str

    async def start(self) -> None:
        """Connect (before the first attempt)."""
        ...

    def attempt(self, rt: RequestRuntime, task: Task, n: int, checkpoint: AgentResult | None, sample: int) -> Frame:
        """Attempt ``n`` of sample ``sample`` of ``task``, ready to run in the frame every attempt shares
        (:class:`~agentcompass._orchestrator.AttemptFrame`: ``run(due)`` holds one slot of ``rt.pool`` for the
        attempt's whole life, admits it, times its queue, counts its spending, records a cancel); the executor
        supplies how the admitted attempt runs. Its files and ``result.json`` end up in ``rt.store`` as a local
        attempt's do."""
        ...

    async def cleanup(self, rt: RequestRuntime) -> int:
        """Remove environments of ``rt``'s run left behind by a killed run, wherever they are."""
        ...

    async def aclose(self) -> None:
        """Disconnect (after the last attempt)."""
        ...


def executor_kind(configs: list[RequestConfig]) -> str:
    """The one executor of these requests (``local`` or ``ray``); requests that disagree are a ConfigError
    (they would not share one pool)."""
    kinds = {
        (c.execution.executor, c.execution.ray.address if c.execution.executor == "ray" else None) for c in configs
    }
    if len(kinds) > 1:
        shown = ", ".join(sorted(k if a is None else f"{k} at {a}" for k, a in kinds))
        raise ConfigError(
            f"execution.executor: the requests of one orchestration share one pool and must use "
            f"the same executor (and ray.address); got {shown}"
        )
    return next(iter(kinds))[0] if kinds else "local"


async def open_executor(
    factory: Any, configs: list[RequestConfig], pool: Pool, logger: logging.Logger
) -> Executor | None:
    """None for ``local``; else the started executor made by ``factory`` (a ConfigError when there is none)."""
    kind = executor_kind(configs)
    if kind == "local":
        return None
    if factory is None:
        raise ConfigError(f"execution.executor={kind!r}, but this entry point runs attempts in-process only")
    executor = factory(kind, configs, pool, logger)
    await executor.start()
    return executor
