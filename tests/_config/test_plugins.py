"""A plug-in from outside the tree: a package installed into a virtual environment contributes a benchmark and a
harness through the ``agentcompass.plugins`` entry point; ``agentcompass run`` runs them, and the package's own
tests (agentcompass's conformance suites, subclassed unchanged) pass.

The venv is built with ``--system-site-packages`` (agentcompass's dependencies come from the running
interpreter) and this checkout is put first on its path with PYTHONPATH, so the test never touches the
interpreter's own installation.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "agentcompass" / "examples" / "plugin_pkg"  # the example shipped in the package

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    where = tmp_path_factory.mktemp("plugin-venv")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(where / "venv")], check=True)
    python = where / "venv" / "bin" / "python"
    source = where / "plugin"
    shutil.copytree(PLUGIN, source)
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index", str(source)],
        check=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("AGENTCOMPASS_DATA_DIR", None)
    return python, env


def test_the_plugin_package_is_installed_in_the_venv_only(venv):
    python, env = venv
    found = subprocess.run(
        [str(python), "-c", "from agentcompass._config import registry; print(registry.list_ids('benchmark'))"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "'echo'" in found.stdout
    from agentcompass._config import registry

    assert "echo" not in registry.list_ids("benchmark")  # this interpreter has no such plug-in


def test_agentcompass_run_runs_the_plugins_benchmark_and_harness(venv, tmp_path):
    python, env = venv
    out = tmp_path / "out"
    cmd = [str(python), "-m", "agentcompass", "run", "echo", "echo_agent", "none", "--results-dir", str(out)]
    done = subprocess.run([*cmd, "--progress", "none"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    (summary,) = out.glob("echo__echo_agent__none/*/summary.json")
    metrics = json.loads(summary.read_text())["metrics"]
    assert (metrics["n_tasks"], metrics["mean_reward"], metrics["n_errors"]) == (3, 1.0, 0)
    listed = subprocess.run([*cmd[:3], "config", "echo", "echo_agent", "none"], env=env, capture_output=True, text=True)
    assert "_target_: tinyplug.benchmark.EchoBenchmark" in listed.stdout, listed.stderr[-2000:]


def test_agentcompass_list_describes_the_plugins_components(venv):
    python, env = venv
    cmd = [str(python), "-m", "agentcompass", "list"]
    cases = (("benchmarks", "echo", "echo.yaml"), ("harnesses", "echo_agent", "echo_agent.yaml"))
    for kind, ident, first_line in cases:
        done = subprocess.run([*cmd, kind, "--json"], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        (row,) = [r for r in json.loads(done.stdout) if r["id"] == ident]
        conf = next((PLUGIN / "tinyplug" / "conf").rglob(first_line)).read_text().splitlines()[0]
        assert row["description"] and conf.lstrip("# ").startswith(row["description"]), (row, conf)


def test_the_plugins_conformance_suites_pass(venv, tmp_path):
    python, env = venv
    tests = tmp_path / "plugin-tests"
    shutil.copytree(PLUGIN / "tests", tests)
    done = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout, done.stdout[-2000:]
