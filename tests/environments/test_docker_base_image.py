"""The base image: the public default, the offline fallback when it can be neither found nor pulled."""

from __future__ import annotations

import pytest

from agentcompass.environments.docker.config import DEFAULT_BASE_IMAGE, DockerConfig
from agentcompass.environments.docker.provider import DockerProvider
from agentcompass.errors import ImageError
from tests.environments.docker_support import BASE_IMAGE, api
from tests.environments.test_docker import spec

pytestmark = pytest.mark.docker


@pytest.fixture(autouse=True)
def _engine(docker_engine):
    import docker

    try:
        api().inspect_image(DEFAULT_BASE_IMAGE)
        pytest.fail(f"{DEFAULT_BASE_IMAGE} is present locally: these tests need it absent (no registry here)")
    except docker.errors.ImageNotFound:
        pass


def resolve(config: DockerConfig, **spec_kw) -> str:
    import asyncio

    async def body():
        provider = DockerProvider(config)
        try:
            await provider.connect()
            return await provider.images.resolve(spec(**spec_kw), config.pull_policy, config.base_image, 60)
        finally:
            await provider.aclose()

    return asyncio.run(body())


def test_default_base_unavailable_uses_the_offline_fallback(caplog):
    with caplog.at_level("WARNING", logger="agentcompass"):
        assert resolve(DockerConfig(base_fallback_image=BASE_IMAGE)) == BASE_IMAGE
    assert f"base image {DEFAULT_BASE_IMAGE} cannot be pulled" in caplog.text and BASE_IMAGE in caplog.text


def test_another_unavailable_base_is_an_error_naming_it():
    with pytest.raises(
        ImageError,
        match=r"base image agentcompass/absent:nope: not present locally and cannot be "
        r"pulled",
    ):
        resolve(DockerConfig(base_image="agentcompass/absent:nope"))


def test_fallback_off_means_no_substitution():
    with pytest.raises(ImageError, match=f"base image {DEFAULT_BASE_IMAGE}: not present"):
        resolve(DockerConfig(base_fallback=False))
