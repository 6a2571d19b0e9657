"""Fixtures for environment tests: a LocalProvider rooted in a temporary directory."""

from __future__ import annotations

import asyncio

import pytest

from agentcompass.environments.local import LocalConfig, LocalProvider
from agentcompass.interfaces import EnvSpec


def run(coro):
    return asyncio.run(coro)


@pytest.fixture
def local_root(tmp_path):
    return tmp_path / "workspaces"


@pytest.fixture
def make_provider(local_root):
    def make(**kw):
        kw.setdefault("root_dir", str(local_root))
        return LocalProvider(LocalConfig(**kw), None)
    return make


@pytest.fixture
def spec():
    return EnvSpec(task_id="demo/task 1", labels={"agentcompass.run_id": "run-a"})
