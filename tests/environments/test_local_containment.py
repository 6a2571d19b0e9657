"""Every process a local environment started ends when it closes: however it left the command's process group,
session or environment, and whatever it calls itself. Checked from /proc by pid (and start time), never by name.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from agentcompass.environments.local import cgroup as _cgroup
from agentcompass.environments.local.proctree import descendants
from agentcompass.errors import SandboxError
from tests.environments.conftest import run
from tests.environments.process_patterns import (
    N_EXPECTED,
    N_HIDDEN,
    pattern_script,
    recorded,
    survivors,
    wait_hidden,
    wait_recorded,
)

HAS_CGROUP = _cgroup.base() is not None
MODES = [pytest.param(True, id="cgroup"), pytest.param(False, id="subreaper")]


def _settle(seen: dict[int, int | None], seconds: float = 10.0) -> list[int]:
    """The survivors of ``seen``, given a moment for the last SIGKILLs to be delivered."""
    deadline = time.monotonic() + seconds
    while (left := survivors(seen)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


@pytest.mark.parametrize("use_cgroup", MODES)
def test_no_process_of_the_patterns_survives_close(make_provider, spec, tmp_path, use_cgroup):
    pids = tmp_path / "pids"

    async def body():
        env = await make_provider(background_grace_s=0.1, cgroup=use_cgroup).open(spec)
        marker = json.loads(env.root.with_name(env.root.name + ".json").read_text())
        r = await env.exec(pattern_script(pids, tmp_path), timeout=120)
        assert r.exit_code == 0, r.stderr
        seen = wait_recorded(pids)
        assert len(wait_hidden(seen, N_HIDDEN + 1)) == N_HIDDEN + 1  # they really shed session, environment and name
        supervisor = env.processes._sup.pid
        assert set(seen) <= set(descendants(supervisor))  # all re-parented to the supervisor, none to init
        cgroup = marker["cgroup"]
        assert bool(cgroup) == (use_cgroup and HAS_CGROUP)
        if cgroup:
            assert set(seen) <= set(_cgroup.members(Path(cgroup)))
        await env.close()
        return seen, supervisor, cgroup

    seen, supervisor, cgroup = run(body())
    seen.update(recorded(pids))  # the loop's last children
    assert len(seen) >= N_EXPECTED
    assert _settle(seen) == []
    assert not Path(f"/proc/{supervisor}").exists()
    assert not cgroup or not Path(cgroup).exists()


@pytest.mark.parametrize("use_cgroup", MODES)
def test_processes_whose_supervisor_was_killed_end_too(make_provider, spec, tmp_path, use_cgroup):
    """A command that kills its own supervisor orphans the rest: they go to the zygote (a subreaper too), which
    ends them at once; the cgroup, where there is one, would end them at close."""
    pids = tmp_path / "pids"

    async def body():
        env = await make_provider(background_grace_s=0.1, cgroup=use_cgroup).open(spec)
        script = pattern_script(pids, tmp_path) + "sleep 1; kill -9 $PPID; sleep 60\n"
        with pytest.raises(SandboxError, match="its supervisor ended unexpectedly"):
            await env.exec(script, timeout=120)
        seen = wait_recorded(pids)
        assert not Path(f"/proc/{env.processes._sup.pid}/cmdline").exists()  # gone, reaped by the zygote
        with pytest.raises(SandboxError, match="its supervisor ended unexpectedly"):
            await env.exec("true")
        seen.update(recorded(pids))
        left_before_close = _settle(seen, 30)
        await env.close()
        return seen, left_before_close

    seen, left_before_close = run(body())
    assert left_before_close == []
    assert _settle(seen) == []


OWNER = """
import asyncio, sys
from pathlib import Path
from agentcompass.environments.local import LocalConfig, LocalProvider
from agentcompass.interfaces import EnvSpec

async def main():
    env = await LocalProvider(LocalConfig(root_dir=sys.argv[1], cgroup=sys.argv[4] == "1"), None).open(
        EnvSpec(task_id="t", labels={"agentcompass.run_id": "kill9"}))
    await env.exec(Path(sys.argv[2]).read_text(), timeout=120)
    print(env.processes._sup.pid, flush=True)
    await asyncio.sleep(600)

asyncio.run(main())
"""


@pytest.mark.parametrize("use_cgroup", MODES)
def test_sigkill_of_the_owning_process_ends_them_too(local_root, tmp_path, use_cgroup):
    """The supervisor reads the end of its socket as the end of the environment, however its owner died."""
    pids, script = tmp_path / "pids", tmp_path / "script.sh"
    script.write_text(pattern_script(pids, tmp_path))
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(local_root), str(script), "", "1" if use_cgroup else "0"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        supervisor = int(owner.stdout.readline())
        seen = wait_recorded(pids)
    finally:
        owner.kill()
        owner.wait()
    seen.update(recorded(pids))
    assert _settle(seen, 30) == []
    deadline = time.monotonic() + 30
    while Path(f"/proc/{supervisor}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not Path(f"/proc/{supervisor}").exists()


def _task_dir(root: Path, pids: Path, scratch: Path) -> Path:
    from agentcompass.benchmarks import demo

    source = Path(demo.__file__).with_name("demo_tasks") / "hello-file"
    task = root / "spawner"
    subprocess.run(["cp", "-r", str(source), str(task)], check=True)
    solve = task / "solution" / "solve.sh"
    solve.write_text("#!/bin/bash\n" + pattern_script(pids, scratch) + "sleep 600\n")
    solve.chmod(0o755)
    return root


@pytest.mark.parametrize("use_cgroup", MODES)
def test_sigterm_of_the_cli_leaves_no_process(tmp_path, use_cgroup):
    pids, scratch = tmp_path / "pids", tmp_path / "scratch"
    scratch.mkdir()
    dataset = _task_dir(tmp_path / "tasks", pids, scratch) if (tmp_path / "tasks").mkdir() is None else None
    env_params = json.dumps({"root_dir": str(tmp_path / "ws"), "cgroup": use_cgroup})
    cli = subprocess.Popen(
        [sys.executable, "-m", "agentcompass", "run", "terminal_bench", "oracle", "none", "--env", "local"]
        + ["--benchmark-params", json.dumps({"dataset_path": str(dataset)}), "--env-params", env_params]
        + ["--results-dir", str(tmp_path / "results"), "--progress", "none"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        seen = wait_recorded(pids)
        cli.send_signal(signal.SIGTERM)
        _out, err = cli.communicate(timeout=120)
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()
    assert cli.returncode == 143, err
    assert "terminated (SIGTERM)" in err
    seen.update(recorded(pids))
    assert _settle(seen) == []
    assert not list((tmp_path / "ws").glob("*.json"))  # workspaces removed with their markers
    if HAS_CGROUP:
        assert not list(_cgroup.base().glob("agentcompass-spawner-*"))


def test_an_exec_through_the_supervisor_keeps_the_contract(make_provider, spec):
    """Exit codes, signals, the environment given, stdin at /dev/null, a missing program: as a direct exec."""

    async def body():
        env = await make_provider().open(spec)
        try:
            assert (await env.exec("exit 7")).exit_code == 7
            assert (await env.exec("kill -TERM $$")).exit_code == -signal.SIGTERM
            r = await env.exec("echo $FOO; cat; echo err >&2", env={"FOO": "bar"})
            assert (r.stdout, r.stderr) == ("bar\n", "err\n")
            r = await env.exec(["no-such-program-xyz"])
            assert r.exit_code == 127 and "no-such-program-xyz" in r.stderr
            r = await env.exec(
                textwrap.dedent("""
                test "$(ps -o sid= -p $$ | tr -d ' ')" = "$$" && echo own-session
                trap - PIPE; yes | head -1
            """)
            )
            assert r.stdout.split() == ["own-session", "y"], r
            assert os.getpid() not in descendants(env.processes._sup.pid)
        finally:
            await env.close()

    run(body())
