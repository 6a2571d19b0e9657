"""A regular (non-editable) wheel install: conf/ ships inside it and Hydra discovers the launcher from it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

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
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp / "dist"), str(ROOT)], check=True, capture_output=True, timeout=300)
    wheel = next((tmp / "dist").glob("agentcompass-*.whl"))
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(tmp / "venv")], check=True,
                   timeout=120)
    py = tmp / "venv" / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True, timeout=300,
                   capture_output=True)
    return tmp, py


def test_launcher_and_conf_come_from_the_wheel(venv):
    tmp, py = venv
    out = subprocess.run([str(py), "-c", PROBE], capture_output=True, text=True, cwd=tmp, timeout=120, check=True)
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    site = str(tmp / "venv")
    assert "agentcompass_launcher.AgentcompassLauncher" in lines["LAUNCHERS"]
    assert lines["PKG"].startswith(site) and lines["PLUGIN"].startswith(site), out.stdout
    conf, is_link, has_config = lines["CONF"].split(" ")
    assert conf.startswith(site) and is_link == "False" and has_config == "True"


def test_installed_cli_runs_the_demo_and_a_launch_from_any_directory(venv):
    tmp, py = venv
    cli = tmp / "venv" / "bin" / "agentcompass"
    run = subprocess.run([str(cli), "run", "--progress", "none", "--results-dir", str(tmp / "out")],
                         capture_output=True, text=True, cwd=tmp, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "mean_reward=1.0000" in run.stdout
    (tmp / "o.yaml").write_text("version: 1\nrequests:\n  - {name: a, benchmark: synthetic, harness: oracle,"
                                " environment: memory}\n  - {name: b, benchmark: synthetic, harness: nop,"
                                " environment: memory}\n")
    launch = subprocess.run([str(cli), "launch", "o.yaml", "--progress", "none", "--results-dir", str(tmp / "o")],
                            capture_output=True, text=True, cwd=tmp, timeout=300)
    assert launch.returncode == 0, launch.stderr
    assert (tmp / "o" / "a").is_dir() and (tmp / "o" / "b").is_dir()
