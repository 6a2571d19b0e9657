"""The Docker engine going away mid-run and coming back: the attempts in flight fail as `infra` errors naming the
engine, are retried once it answers again, none hangs, and no container is left.

The engine is a second ``dockerd`` this module starts on its own socket, data root, exec root and pid file, with
no bridge and no iptables rules (:mod:`tests.environments.second_engine`); the main engine is never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from tests.environments.docker_support import TEST_LABELS, require_engine
from tests.environments.second_engine import IMAGE, SecondEngine, has_link

pytestmark = [pytest.mark.docker, pytest.mark.slow]  # a second dockerd: about 75 s

ROOT = Path(__file__).resolve().parents[2]
TASK_TOML = f"""version = "1.0"
[verifier]
timeout_sec = 60.0
[agent]
timeout_sec = 300.0
[environment]
docker_image = "{IMAGE}"
"""
TEST_SH = """#!/bin/bash
mkdir -p /logs/verifier
if [ "$(cat /app/out 2>/dev/null)" = done ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
"""


@pytest.fixture(scope="module")
def engine():
    require_engine()  # docker is installed (scripts/ensure_docker.sh)
    if os.geteuid() != 0 or shutil.which("dockerd") is None:
        pytest.skip("a second dockerd needs root and the dockerd binary")
    if shutil.which("ip") is None:
        pytest.skip("the ip command (iproute2) makes the second engine's bridge")
    main_bridge = has_link("docker0")
    directory = Path(tempfile.mkdtemp(prefix="ac-engine-", dir="/tmp"))  # short: a socket path has 107 bytes
    second = SecondEngine(directory)
    try:
        second.start()
        second.load_mini_image(directory)
        yield second
    finally:
        second.stop()
    assert has_link("docker0") == main_bridge, "the main engine's bridge docker0 must survive the second engine"


def tasks(root: Path, n: int = 4, seconds: int = 15) -> Path:
    for i in range(1, n + 1):
        task = root / f"slow-{i}"
        (task / "solution").mkdir(parents=True)
        (task / "tests").mkdir()
        (task / "task.toml").write_text(TASK_TOML)
        (task / "instruction.md").write_text("Write done into /app/out.\n")
        (task / "solution" / "solve.sh").write_text(f"#!/bin/bash\nsleep {seconds}\necho done > /app/out\n")
        (task / "tests" / "test.sh").write_text(TEST_SH)
    return root


def start_run(engine: SecondEngine, tmp_path: Path, run_id: str, **env_params) -> subprocess.Popen:
    params = {"network": "none", "pull_policy": "never", "labels": TEST_LABELS, **env_params}
    return subprocess.Popen(
        [sys.executable, "-m", "agentcompass", "run", "terminal_bench", "oracle", "none", "--env", "docker"]
        + ["--benchmark-params", json.dumps({"dataset_path": str(tasks(tmp_path / "tasks"))})]
        + ["--env-params", json.dumps(params), "--max-retries", "2", "--task-concurrency", "4"]
        + ["--results-dir", str(tmp_path / "results"), "--run-id", run_id, "--progress", "none"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=engine.env(),
        start_new_session=True,
    )


def wait_running(engine: SecondEngine, run_id: str, n: int, cli: subprocess.Popen) -> None:
    deadline = time.monotonic() + 300
    while len(engine.containers("status=running", f"label=agentcompass.run_id={run_id}")) < n:
        assert cli.poll() is None, cli.communicate()
        assert time.monotonic() < deadline, "the attempts did not start"
        time.sleep(0.3)
    time.sleep(2)  # the solutions are running


def finish(cli: subprocess.Popen) -> tuple[int, str]:
    try:
        _out, err = cli.communicate(timeout=600)
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.communicate()
    return cli.returncode, err


def attempts(run_dir: Path, task: str) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(run_dir.glob(f"tasks/{task}/sample-1/attempt-*/result.json"))]


def test_a_restarted_engine_fails_the_attempts_in_flight_which_are_retried(engine, tmp_path):
    run_id = f"restart-{uuid.uuid4().hex[:8]}"
    cli = start_run(engine, tmp_path, run_id)
    wait_running(engine, run_id, 4, cli)
    engine.kill()
    time.sleep(3)
    engine.start()
    code, err = finish(cli)
    assert code == 0, err
    (run_dir,) = (tmp_path / "results").glob(f"*/{run_id}")
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["metrics"]["n_samples"] == 4 and summary["metrics"]["mean_reward"] == 1.0
    assert summary["metrics"]["n_retries"] == 4
    for i in range(1, 5):
        first, second = attempts(run_dir, f"slow-{i}")
        assert first["error_type"] == "EngineUnavailableError" and first["error_class"] == "infra"
        assert f"the engine at {engine.host} does not answer" in first["error"]
        assert second["status"] == "completed" and second["reward"] == 1.0
    assert engine.containers(f"label=agentcompass.run_id={run_id}") == []  # those of the first attempts too


def test_an_engine_that_stays_away_ends_the_attempts_within_the_wait(engine, tmp_path):
    run_id = f"away-{uuid.uuid4().hex[:8]}"
    cli = start_run(engine, tmp_path, run_id, engine_wait_s=3)
    wait_running(engine, run_id, 4, cli)
    engine.kill()
    try:
        code, err = finish(cli)  # no attempt waits for it past engine_wait_s; the provider's own wait is as short
    finally:
        engine.start()
    assert code == 1, err
    (run_dir,) = (tmp_path / "results").glob(f"*/{run_id}")
    for i in range(1, 5):
        tries = attempts(run_dir, f"slow-{i}")
        assert [t["error_type"] for t in tries] == ["EngineUnavailableError"] * 3  # retried under the usual rules
        assert f"the engine at {engine.host} has not answered for 3 s" in tries[-1]["error"]
    assert "could not be removed" in err and "agentcompass cleanup" in err
    left = engine.containers(f"label=agentcompass.run_id={run_id}")
    assert len(left) == 4  # what the engine still holds after it came back ...
    done = subprocess.run(
        [sys.executable, "-m", "agentcompass", "cleanup", "--run-id", run_id, "--env", "docker"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=engine.env(),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert engine.containers(f"label=agentcompass.run_id={run_id}") == []  # ... cleanup removes
