"""The local, memory and docker environments against the environment conformance suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcompass.environments.local import LocalConfig, LocalProvider
from agentcompass.environments.memory import MemoryConfig, MemoryProvider
from agentcompass.interfaces import EnvSpec
from agentcompass.testing.conformance.environment import CommandEnvironmentSuite, FileEnvironmentSuite


class TestLocalEnvironment(CommandEnvironmentSuite):
    KILL_WITHIN_S = 5.0

    def make_provider(self, tmp_dir: Path) -> LocalProvider:
        return LocalProvider(LocalConfig(root_dir=str(tmp_dir / "workspaces")), None)


class TestMemoryEnvironment(FileEnvironmentSuite):
    SYMLINKS = False

    def make_provider(self, tmp_dir: Path) -> MemoryProvider:
        return MemoryProvider(MemoryConfig(), None)


@pytest.mark.docker
@pytest.mark.usefixtures("docker_engine", "suite_containers")
class TestDockerEnvironment(CommandEnvironmentSuite):
    """One container per class: its labels name a session of its own, so the per-test teardown of the docker
    tests (which removes this session's containers) leaves it alone; ``suite_containers`` removes it."""

    def make_provider(self, tmp_dir: Path):
        from agentcompass.environments.docker import DockerConfig, DockerProvider

        return DockerProvider(DockerConfig())

    def spec(self, task_id: str = "conformance", **fields) -> EnvSpec:
        from tests.environments.docker_support import SUITE_LABELS

        return super().spec(task_id, labels=dict(SUITE_LABELS), **fields)
