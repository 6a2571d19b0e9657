"""Building the offline base image on a host without debootstrap: the error offers
``--auto-install-dependencies``, which installs debootstrap with apt-get (and says so when it cannot); the docker
provider passes the request's ``auto_install_dependencies`` on. No Docker engine is needed: the host tools are
checked before the engine is used."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agentcompass.environments.docker.base_image import build_base_image
from agentcompass.environments.docker.config import DockerConfig
from agentcompass.environments.docker.provider import DockerProvider
from agentcompass.errors import ImageError
from agentcompass.interfaces import ComponentContext

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="building the base image needs root")


@pytest.fixture
def bare_path(tmp_path, monkeypatch):
    """A PATH holding only ``sh`` (no debootstrap, no apt-get)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "sh").symlink_to(shutil.which("sh"))
    monkeypatch.setenv("PATH", str(bin_dir))
    return bin_dir


def test_a_missing_debootstrap_offers_auto_install(bare_path, tmp_path):
    with pytest.raises(ImageError) as info:
        build_base_image(None, "agentcompass/base:test", tmp_path / "data")
    message = str(info.value)
    assert message.startswith("base image: debootstrap is not installed; pass --auto-install-dependencies")
    assert "install it with apt-get and build the base image" in message and "\n" not in message


def test_auto_install_without_apt_get_says_why(bare_path, tmp_path):
    with pytest.raises(ImageError, match="debootstrap is not installed and this host has no apt-get"):
        build_base_image(None, "agentcompass/base:test", tmp_path / "data", auto_install=True)


@pytest.mark.parametrize("auto", [False, True])
def test_the_provider_passes_auto_install_on(auto, tmp_path):
    ctx = ComponentContext(data_dir=Path(tmp_path), auto_install_dependencies=auto)
    fallback = DockerProvider(DockerConfig(), ctx)._fallback()
    assert fallback is not None and fallback.auto_install is auto
