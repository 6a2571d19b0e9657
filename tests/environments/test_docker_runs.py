"""Whole runs in docker: a run killed with SIGKILL leaves containers that reuse and `agentcompass cleanup` remove;
a run or a launch stopped with SIGTERM removes its own."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.environments.docker_support import TEST_LABELS, api
from tests.run_support import COMMAND, EXEC, check_cancelled, start_cli, terminate

pytestmark = pytest.mark.docker


def containers_of(run_id: str) -> set[str]:
    found = api().containers(all=True, filters={"label": [f"agentcompass.run_id={run_id}"]})
    return {c["Id"] for c in found}


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def start_run(tmp_path, *extra):
    args = [
        sys.executable,
        "-m",
        "agentcompass",
        "run",
        "demo",
        "nop",
        "none",
        "--env",
        "docker",
        "--env-params",
        json.dumps({"labels": TEST_LABELS}),
        "--results-dir",
        str(tmp_path),
        "--run-name",
        "killed",
        "--task-concurrency",
        "3",
        "--progress",
        "none",
        "harness._target_=agentcompass.testing.sleep_harness.SleepHarness",
        "+harness.sleep_s=600",
        *extra,
    ]
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def test_sigkill_then_reuse_and_cleanup_leave_no_container(docker_engine, tmp_path):
    run_id = f"kill-{os.getpid()}-{int(time.time())}"
    proc = start_run(tmp_path, "--run-id", run_id)
    try:
        first = wait_for(
            lambda: containers_of(run_id) if len(containers_of(run_id)) >= 3 else None,
            600,
            "three containers of the run",
        )
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert containers_of(run_id) >= first  # left behind by the killed process
    # a reuse of the same run removes the leftovers before it starts its own attempts
    proc = start_run(tmp_path, "--reuse", run_id)
    try:
        wait_for(lambda: not (containers_of(run_id) & first), 300, "the leftovers to be removed by reuse")
        wait_for(lambda: containers_of(run_id), 300, "the reused run's own containers")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert containers_of(run_id)
    out = subprocess.run(
        [sys.executable, "-m", "agentcompass", "cleanup", "--run-id", run_id],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0 and "removed" in out.stdout, out.stderr
    assert containers_of(run_id) == set()
    assert api().containers(all=True, filters={"label": [f"agentcompass.run_id={run_id}"]}) == []


def test_sigterm_stops_a_docker_run_and_removes_its_containers(docker_engine, tmp_path):
    run_id = f"term-{os.getpid()}-{int(time.time())}"

    def containers():
        return api().containers(all=True, filters={"label": [f"agentcompass.run_id={run_id}"]})

    proc = start_cli(
        "run",
        "demo",
        "nop",
        "none",
        "--env",
        "docker",
        "--results-dir",
        str(tmp_path),
        "--run-id",
        run_id,
        "--progress",
        "none",
        "--task-concurrency",
        "2",
        "--benchmark-params",
        json.dumps({"sample_ids": ["count-words", "fix-python-script"]}),
        "--env-params",
        json.dumps({"labels": TEST_LABELS}),
        f"harness._target_={EXEC}",
        COMMAND,
    )
    try:
        wait_for(lambda: len(containers()) == 2, 600, "two containers")
        time.sleep(1.0)  # the commands are running
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    code, err = terminate(proc, timeout=120)
    assert code == 143, err
    check_cancelled(tmp_path / "demo__nop__none" / run_id)
    assert containers() == []
    assert err.strip().splitlines()[-1].endswith(f" --reuse {run_id}")


def test_sigterm_stops_a_docker_launch_and_removes_its_containers(docker_engine, tmp_path):
    import yaml

    run_id = f"lterm-{os.getpid()}-{int(time.time())}"

    def containers():
        return api().containers(all=True, filters={"label": [f"agentcompass.run_id={run_id}"]})

    spec = {
        "version": 1,
        "name": "dterm",
        "task_concurrency": 2,
        "runtime": {"results_dir": str(tmp_path / "out"), "progress": "none"},
        "defaults": {
            "benchmark": {"id": "demo", "sample_ids": ["count-words"]},
            "environment": {"id": "docker", "labels": TEST_LABELS},
            "harness": {"id": "nop", "_target_": EXEC, "command": "sleep 321"},
        },
        "requests": [{"name": "a"}, {"name": "b"}],
    }
    path = tmp_path / "orch.yaml"
    path.write_text(yaml.safe_dump(spec))
    proc = start_cli("launch", str(path), "--run-id", run_id)
    try:
        wait_for(lambda: len(containers()) == 2, 600, "a container per request")
        time.sleep(1.0)
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    code, err = terminate(proc, timeout=120)
    assert code == 143, err
    for name in ("a", "b"):
        check_cancelled(tmp_path / "out" / name / run_id)
    assert containers() == []
    resume = f"agentcompass: resume with: agentcompass launch {path} --run-id {run_id} --reuse"
    assert err.strip().splitlines()[-1] == resume
