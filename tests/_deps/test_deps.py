"""Optional dependencies: the missing-extra error names the command and the flag; with the flag a real
package is installed into a throwaway virtual environment and the run proceeds; tools inside environments."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from agentcompass import _deps
from agentcompass.environments.local import LocalConfig, LocalProvider
from agentcompass.errors import ConfigError, DependencyError
from agentcompass.interfaces import EnvSpec, ExecResult

REPO = Path(__file__).resolve().parents[2]


def test_a_missing_extra_names_the_install_command_and_the_flag():
    with pytest.raises(DependencyError) as info:
        _deps.require("agentcompass_no_such_module_xyz", "swebench", purpose="reading parquet datasets")
    msg = str(info.value)
    assert "reading parquet datasets needs the Python module 'agentcompass_no_such_module_xyz'" in msg
    assert "pip install 'agentcompass[swebench]'" in msg and "--auto-install-dependencies" in msg
    assert isinstance(info.value, ConfigError)  # CLI exit 2, nothing ran
    assert _deps.require("json", "swebench").dumps([1]) == "[1]"  # present: just imported


def test_swebench_parquet_reader_without_pyarrow_gives_the_command(monkeypatch, tmp_path):
    from agentcompass.benchmarks.swebench import dataset

    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if pyarrow were not installed
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(DependencyError) as info:
        dataset.read_file(tmp_path / "test.parquet")
    assert "'pyarrow>=14'" in str(info.value) and "pip install 'agentcompass[swebench]'" in str(info.value)
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    with pytest.raises(DependencyError, match=r"pip install 'agentcompass\[hub\]'"):
        dataset.download("org/name", "test", tmp_path / "dl")


def test_extras_table_matches_pyproject():
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra, specs in _deps.EXTRAS.items():
        assert declared.get(extra) == specs, f"pyproject [{extra}] differs from agentcompass._deps.EXTRAS"


@pytest.mark.slow
def test_auto_install_into_a_throwaway_venv_and_the_run_proceeds(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONNOUSERSITE": "1"}
    res = subprocess.run(
        [str(python), str(Path(__file__).with_name("venv_script.py"))],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if res.returncode == 3:
        pytest.skip("tomli_w is already importable from the system site-packages")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "WITHOUT FLAG:" in res.stdout and "pip install 'agentcompass[toml]'" in res.stdout
    assert "--auto-install-dependencies" in res.stdout
    assert "WITH FLAG: mean_reward 1.0" in res.stdout
    assert f"INSTALLED AT {venv}" in res.stdout  # into the venv, not the system
    check = subprocess.run([sys.executable, "-c", "import tomli_w"], capture_output=True, env=env)
    assert check.returncode != 0  # the running test interpreter is untouched


# --------------------------------------------------------------------------- tools inside environments


def _local(tmp_path):
    provider = LocalProvider(LocalConfig(root_dir=str(tmp_path / "ws")), None)
    return provider, EnvSpec(task_id="tools", workdir="/app")


def test_ensure_tools_in_a_local_environment(tmp_path):
    async def go():
        provider, spec = _local(tmp_path)
        env = await provider.open(spec)
        try:
            assert await _deps.ensure_tools(env, ["bash", "sh"], auto_install=False) == []
            with pytest.raises(DependencyError) as info:
                await _deps.ensure_tools(
                    env, ["bash", "no-such-tool-abc", "no-such-tool-def"], auto_install=False, image_hint="host"
                )
            msg = str(info.value)
            assert "no-such-tool-abc, no-such-tool-def" in msg and "(image host)" in msg
            assert "--auto-install-dependencies" in msg
            with pytest.raises(DependencyError, match="does not install system packages on the host"):
                await _deps.ensure_tools(env, ["no-such-tool-abc"], auto_install=True)
        finally:
            await env.close()

    asyncio.run(go())


def test_install_commands_per_package_manager():
    assert "apt-get install -y -qq --no-install-recommends procps tmux" in _deps.install_script(
        "apt-get", ["procps", "tmux"]
    )
    assert _deps.install_script("apk", ["git"]).endswith("$S apk add --no-cache git")
    assert _deps.package_of("ps", "dnf") == "procps-ng" and _deps.package_of("git", "yum") == "git"


class _DockerExecEnv:
    """The three methods ensure_tools uses, over ``docker exec`` on a container started by the test."""

    def __init__(self, cid: str) -> None:
        self.id, self.workdir = cid, "/"

    def describe(self) -> dict:
        return {"provider": "docker", "id": self.id}

    async def exec(self, cmd, *, timeout=None, cwd=None, env=None) -> ExecResult:
        proc = await asyncio.create_subprocess_exec(
            "docker",
            "exec",
            "-w",
            cwd or "/",
            self.id,
            "bash",
            "-c",
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
        return ExecResult(proc.returncode, out.decode(), err.decode())


@pytest.mark.docker
@pytest.mark.slow
def test_ensure_tools_installs_with_the_image_package_manager():
    from tests.environments.docker_support import BASE_IMAGE, TEST_LABELS, require_engine

    require_engine()
    labels = [a for k, v in {**TEST_LABELS, "agentcompass": "1"}.items() for a in ("--label", f"{k}={v}")]
    cid = subprocess.run(
        ["docker", "run", "-d", "--init", *labels, BASE_IMAGE, "sleep", "600"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    try:
        env = _DockerExecEnv(cid)
        with pytest.raises(DependencyError, match=r"missing tools in environment .*\(image agentcompass"):
            asyncio.run(_deps.ensure_tools(env, ["git", "jq"], auto_install=False, image_hint=BASE_IMAGE))
        assert asyncio.run(_deps.ensure_tools(env, ["git", "jq"], auto_install=True)) == ["jq"]
        assert asyncio.run(_deps.missing_tools(env, ["jq"])) == []
    finally:
        subprocess.run(["docker", "rm", "-f", "-v", cid], capture_output=True)


def test_a_no_deps_package_is_named_with_its_second_step(monkeypatch):
    """bfcl: the extra holds what bfcl-eval's multi-turn code imports; bfcl-eval itself installs with --no-deps."""
    assert (
        _deps.install_command("bfcl")
        == "pip install 'agentcompass[bfcl]' && pip install --no-deps bfcl-eval==2026.3.23"
    )
    monkeypatch.setitem(sys.modules, "bfcl_eval", None)  # as if bfcl-eval were not installed
    with pytest.raises(DependencyError) as info:
        _deps.require("bfcl_eval", "bfcl", auto_install=False)
    assert "'bfcl-eval==2026.3.23'" in str(info.value) and "--no-deps bfcl-eval==2026.3.23" in str(info.value)
