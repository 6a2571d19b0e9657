"""Fixtures of the terminus2 tests: a real local environment (workspace on the host) with tmux."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

if str(Path(__file__).parent) not in sys.path:  # t2_support sits next to this file
    sys.path.insert(0, str(Path(__file__).parent))
from t2_support import Outcome, drive

from agentcompass.interfaces import EnvSpec


@pytest.fixture
def run():
    """Run a coroutine to completion on a fresh event loop."""

    def _run(coro, timeout: float = 120):
        return asyncio.run(asyncio.wait_for(coro, timeout))

    return _run


@pytest.fixture
def local_provider(tmp_path):
    from agentcompass.environments.local import LocalConfig, LocalProvider

    return LocalProvider(LocalConfig(root_dir=str(tmp_path / "workspaces")))


@pytest.fixture
def in_local_env(local_provider, run):
    """``in_local_env(fn)`` runs ``await fn(env)`` in a fresh local environment (workdir /app), then closes it."""

    def _in_env(fn, timeout: float = 120):
        async def scenario():
            env = await local_provider.open(EnvSpec(task_id="terminus2-test", workdir="/app"))
            try:
                return await fn(env)
            finally:
                await env.close()

        return run(scenario(), timeout)

    return _in_env


@pytest.fixture
def terminus_local(local_provider, run, tmp_path):
    """``terminus_local(replies, **kw)``: :func:`drive` in the local environment."""

    def _go(replies: Any, **kw: Any) -> Outcome:
        limit = kw.pop("test_timeout", 180)
        return run(drive(local_provider, replies, tmp_path, **kw), limit)

    return _go
