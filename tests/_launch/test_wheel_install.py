"""A regular (non-editable) wheel install: conf/ ships inside it and Hydra discovers the launcher from it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# the installed wheel must be what runs: no PYTHONPATH pointing back at a source tree
CLEAN_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

PROBE = r"""
import pathlib, agentcompass, hydra_plugins.agentcompass_launcher as plug
from hydra.core.plugins import Plugins
from hydra.plugins.launcher import Launcher
from agentcompass._config.registry import conf_dir
names = [f"{p.__module__}.{p.__name__}" for p in Plugins.instance().discover(Launcher)]
print("LAUNCHERS", names)
print("PKG", pathlib.Path(agentcompass.__file__).resolve())
print("PLUGIN", pathlib.Path(plug.__file__).resolve())
print("CONF", conf_dir(), conf_dir().is_symlink(), (conf_dir() / "config.yaml").is_file())
"""


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp / "dist"),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheel = next((tmp / "dist").glob("agentcompass-*.whl"))
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", str(tmp / "venv")],
        check=True,
        timeout=120,
        env=CLEAN_ENV,
    )
    py = tmp / "venv" / "bin" / "python"
    subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--no-deps", str(wheel)],
        check=True,
        timeout=300,
        capture_output=True,
        env=CLEAN_ENV,
    )
    return tmp, py


def test_launcher_and_conf_come_from_the_wheel(venv):
    tmp, py = venv
    out = subprocess.run(
        [str(py), "-c", PROBE], capture_output=True, text=True, cwd=tmp, timeout=120, check=True, env=CLEAN_ENV
    )
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    site = str(tmp / "venv")
    assert "agentcompass_launcher.AgentcompassLauncher" in lines["LAUNCHERS"]
    assert lines["PKG"].startswith(site) and lines["PLUGIN"].startswith(site), out.stdout
    conf, is_link, has_config = lines["CONF"].split(" ")
    assert conf.startswith(site) and is_link == "False" and has_config == "True"


def test_the_wheel_ships_the_plugin_example(venv):
    tmp, py = venv
    code = "import agentcompass, pathlib; print(pathlib.Path(agentcompass.__file__).parent / 'examples' / 'plugin_pkg')"
    out = subprocess.run([str(py), "-c", code], capture_output=True, text=True, cwd=tmp, check=True, env=CLEAN_ENV)
    shipped = Path(out.stdout.strip())
    source = ROOT / "agentcompass" / "examples" / "plugin_pkg"

    def files(root: Path) -> list[str]:
        return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)

    assert str(shipped).startswith(str(tmp / "venv")) and files(shipped) == files(source), shipped


def test_installed_cli_runs_the_demo_and_a_launch_from_any_directory(venv):
    tmp, py = venv
    cli = tmp / "venv" / "bin" / "agentcompass"
    run = subprocess.run(
        [str(cli), "run", "--progress", "none", "--results-dir", str(tmp / "out")],
        capture_output=True,
        text=True,
        cwd=tmp,
        timeout=300,
        env=CLEAN_ENV,
    )
    assert run.returncode == 0, run.stderr
    assert "mean_reward=1.0000" in run.stdout
    (tmp / "o.yaml").write_text(
        "version: 1\nrequests:\n  - {name: a, benchmark: synthetic, harness: oracle,"
        " environment: memory}\n  - {name: b, benchmark: synthetic, harness: nop,"
        " environment: memory}\n"
    )
    launch = subprocess.run(
        [str(cli), "launch", "o.yaml", "--progress", "none", "--results-dir", str(tmp / "o")],
        capture_output=True,
        text=True,
        cwd=tmp,
        timeout=300,
        env=CLEAN_ENV,
    )
    assert launch.returncode == 0, launch.stderr
    assert (tmp / "o" / "a").is_dir() and (tmp / "o" / "b").is_dir()


def _built_from(api, base_id: str) -> dict[str, list[str]]:
    """The images whose history contains ``base_id`` (the task images built on a base): id -> repo tags."""
    out = {}
    for image in api.images(filters={"label": "agentcompass=1"}):
        try:
            if any(layer.get("Id") == base_id for layer in api.history(image["Id"])):
                out[image["Id"]] = list(image.get("RepoTags") or [])
        except Exception:
            continue
    return out


@pytest.mark.docker
def test_installed_cli_runs_the_docker_demo_with_the_base_image_absent(venv):
    """No registry and no base image: the default public base cannot be pulled, so the packaged offline fallback
    (debootstrap root file system, cached in the data dir by an earlier build) is imported under a fresh tag and
    every demo task builds on it and scores 1."""
    import docker

    from tests.environments.docker_support import require_engine

    require_engine()
    tmp, _py = venv
    api = docker.from_env().api
    from agentcompass.environments.docker.config import DEFAULT_BASE_IMAGE

    try:
        api.inspect_image(DEFAULT_BASE_IMAGE)
        pytest.fail(f"{DEFAULT_BASE_IMAGE} is present locally: this test needs the default base image absent")
    except docker.errors.ImageNotFound:
        pass
    tag = f"agentcompass/base:wheel-{uuid.uuid4().hex[:8]}"
    cli = tmp / "venv" / "bin" / "agentcompass"
    try:
        run = subprocess.run(
            [
                str(cli),
                "run",
                "demo",
                "oracle",
                "none",
                "--env",
                "docker",
                "--progress",
                "none",
                "--env-params",
                json.dumps({"base_fallback_image": tag}),
                "--results-dir",
                str(tmp / "docker-out"),
            ],
            capture_output=True,
            text=True,
            cwd=tmp,
            timeout=1800,
            env=CLEAN_ENV,
        )
        assert run.returncode == 0, run.stderr[-3000:]
        assert "tasks=7" in run.stdout and "mean_reward=1.0000" in run.stdout, run.stdout
        assert f"building the offline fallback {tag}" in run.stderr
        base_id = api.inspect_image(tag)["Id"]
        tasks = {t.split(":")[0].rsplit("/", 1)[-1] for tags in _built_from(api, base_id).values() for t in tags}
        assert tasks == {
            "count-words",
            "fix-python-script",
            "fix-shell-script",
            "git-commit",
            "hello-file",
            "json-transform",
            "partial-credit",
        }
    finally:
        try:
            base_id = api.inspect_image(tag)["Id"]
        except docker.errors.ImageNotFound:
            base_id = None
        if base_id:
            for image_id in _built_from(api, base_id):
                api.remove_image(image_id, force=True)
            api.remove_image(tag, force=True)
