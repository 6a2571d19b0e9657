"""The local, memory and docker environments against the environment conformance suite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentcompass.interfaces import EnvSpec
from agentcompass.testing.conformance.environment import CommandEnvironmentSuite, FileEnvironmentSuite


class TestLocalEnvironment(CommandEnvironmentSuite):
    ENVIRONMENT = "local"
    KILL_WITHIN_S = 5.0

    def provider_params(self, tmp_dir: Path) -> dict[str, Any]:
        return {"root_dir": str(tmp_dir / "workspaces")}


class TestMemoryEnvironment(FileEnvironmentSuite):
    ENVIRONMENT = "memory"
    SYMLINKS = False


@pytest.mark.docker
@pytest.mark.usefixtures("docker_engine", "suite_containers")
class TestDockerEnvironment(CommandEnvironmentSuite):
    """One container per class: its labels name a session of its own, so the per-test teardown of the docker
    tests (which removes this session's containers) leaves it alone; ``suite_containers`` removes it."""

    ENVIRONMENT = "docker"

    def spec(self, task_id: str = "conformance", **fields) -> EnvSpec:
        from tests.environments.docker_support import SUITE_LABELS

        return super().spec(task_id, labels=dict(SUITE_LABELS), **fields)
