"""Docker fixtures for the gateway tests (the environment tests' engine check and per-test teardown)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def docker_engine():
    from tests.environments.docker_support import require_engine

    require_engine()


@pytest.fixture(autouse=True)
def _docker_test_containers(request):
    yield
    if request.node.get_closest_marker("docker") is not None:
        from tests.environments.docker_support import engine_problem, remove_session_containers

        if engine_problem() is None:
            remove_session_containers()
