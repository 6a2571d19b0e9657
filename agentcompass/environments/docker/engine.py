"""The Docker engine going away and coming back: which errors mean it, waiting for it, what it left behind.

A call that cannot reach the engine (connection refused or reset, the socket gone, a reply cut off) is an
:class:`~agentcompass.errors.EngineUnavailableError` naming the engine: class ``infra``, retryable. Once one is
seen, the next ``open`` first waits for the engine to answer a ping again (at most ``engine_wait_s``), so a retry
runs when the engine is back instead of failing at once. Containers that could not be removed while it was away
are removed when it answers again, at the latest when the provider closes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from agentcompass.errors import EngineUnavailableError, SandboxError

log = logging.getLogger("agentcompass.environments.docker")
PING_TIMEOUT_S = 5.0
Ping = Callable[[], Awaitable[Any]]
Remove = Callable[[str], Awaitable[bool]]


def _unreachable(exc: BaseException) -> bool:
    """True when ``exc`` says the engine could not be reached (not that it refused a request)."""
    import requests

    if isinstance(exc, EngineUnavailableError):
        return True
    if isinstance(exc, (requests.exceptions.ConnectionError, ConnectionError)):  # a socket gone: ConnectionError
        return True
    text = str(exc)
    return "Connection aborted" in text or "Error while fetching server API version" in text


def engine_name() -> str:
    """The engine the Docker SDK talks to (``docker.from_env()``: ``DOCKER_HOST``, else the default socket)."""
    import os

    return os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"


class EngineWatch:
    """The engine's state as this provider saw it, and what is owed to it once it answers again."""

    def __init__(self) -> None:
        self.down_since: float | None = None
        self.unremoved: set[str] = set()  # container ids or names whose removal failed while it was away
        self._waiting: asyncio.Lock | None = None

    def error(self, exc: BaseException, name: str, what: str) -> EngineUnavailableError | None:
        """``exc`` as an EngineUnavailableError when it means the engine is away (noted), else None."""
        if not _unreachable(exc):
            return None
        if self.down_since is None:
            self.down_since = time.monotonic()
            log.warning("docker: the engine at %s does not answer (%s): %s", name, what, _short(exc))
        if isinstance(exc, EngineUnavailableError):
            return exc
        return EngineUnavailableError(f"docker: the engine at {name} does not answer ({what}): {_short(exc)}")

    async def wait(self, ping: Ping, name: str, limit_s: float) -> None:
        """Return once the engine answers (at once when it was never seen away); EngineUnavailableError when it
        has not answered for ``limit_s`` seconds."""
        if self.down_since is None:
            return
        self._waiting = self._waiting or asyncio.Lock()
        async with self._waiting:  # one poller; the others wait for its answer
            deadline, pause = time.monotonic() + limit_s, 0.2
            while self.down_since is not None:
                try:
                    await asyncio.wait_for(ping(), PING_TIMEOUT_S)
                except Exception as exc:
                    if time.monotonic() + pause > deadline:
                        raise EngineUnavailableError(
                            f"docker: the engine at {name} has not answered for {limit_s:.0f} s: {_short(exc)}"
                        ) from None
                    await asyncio.sleep(pause)
                    pause = min(2.0, pause * 1.5)
                    continue
                log.warning("docker: the engine at %s answers again", name)
                self.down_since = None

    async def answers(self, ping: Ping, name: str, limit_s: float, remove: Remove) -> None:
        """Before an open: wait for an engine seen away to answer again, then remove what it was owed."""
        await self.wait(ping, name, limit_s)
        for cid in sorted(self.unremoved):
            self.unremoved.discard(cid)
            try:
                await remove(cid)  # back in the set when the engine went away again
            except SandboxError:
                continue

    async def settle(self, ping: Ping, name: str, limit_s: float, remove: Remove) -> None:
        """When the provider closes: the containers still owed are removed (waiting for the engine at most
        ``limit_s``), or named in a warning."""
        if not self.unremoved:
            return
        try:
            await self.answers(ping, name, limit_s, remove)
        except EngineUnavailableError as exc:
            log.warning(
                "docker: %d container(s) could not be removed (%s); `agentcompass cleanup` removes them "
                "once the engine answers",
                len(self.unremoved),
                exc,
            )

    async def down(self, exc: BaseException, ping: Ping) -> EngineUnavailableError | None:
        """When an environment failed (``exc``), whether it is because the engine went away (a ping says)."""
        if isinstance(exc, EngineUnavailableError):
            return exc
        try:
            await asyncio.wait_for(ping(), PING_TIMEOUT_S)
        except EngineUnavailableError as gone:
            return gone
        except Exception:
            return None
        return None


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."
