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


# --------------------------------------------------------------------------- docker (tests marked `docker`)


@pytest.fixture(scope="session")
def docker_engine():
    """A running Docker engine with the base image (scripts/ensure_docker.sh); skip, or fail under CI."""
    from tests.environments.docker_support import require_engine

    require_engine()


@pytest.fixture(autouse=True)
def _docker_test_containers(request):
    """After each docker test, remove the containers this test session labelled agentcompass.test=1."""
    yield
    if request.node.get_closest_marker("docker") is not None:
        from tests.environments.docker_support import engine_problem, remove_session_containers

        if engine_problem() is None:
            remove_session_containers()


@pytest.fixture(scope="class")
def suite_containers():
    """After a test class whose containers carry SUITE_LABELS, remove any it left behind."""
    yield
    from tests.environments.docker_support import SUITE_LABELS, engine_problem, remove_session_containers

    if engine_problem() is None:
        remove_session_containers(SUITE_LABELS)
