"""SIGTERM (Slurm, Kubernetes, systemd, `timeout`) stops a run as Ctrl-C does: exit 143, run.json `cancelled`,
summary written, nothing left behind (workspaces, processes, containers), and the resume command printed.
The docker case is in tests/environments/test_docker_runs.py."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time

import yaml

from tests.run_support import (
    COMMAND,
    EXEC,
    REPO,
    check_cancelled,
    cli_env,
    processes_with,
    read_json,
    start_cli,
    terminate,
    wait_for,
)


def test_sigterm_stops_a_local_run_and_leaves_nothing(tmp_path):
    ws = tmp_path / "ws"
    proc = start_cli(
        "run",
        "demo",
        "nop",
        "none",
        "--env",
        "local",
        "--results-dir",
        str(tmp_path / "out"),
        "--progress",
        "none",
        "--task-concurrency",
        "3",
        "--env-params",
        json.dumps({"root_dir": str(ws)}),
        f"harness._target_={EXEC}",
        COMMAND,
    )
    try:
        wait_for(lambda: len(processes_with(f"AGENTCOMPASS_ROOT={ws}")) >= 6, 90, "three attempts and their daemons")
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    start = time.monotonic()
    code, err = terminate(proc)
    assert code == 143, err
    assert time.monotonic() - start < 30
    (run_dir,) = (tmp_path / "out" / "demo__nop__none").iterdir()
    check_cancelled(run_dir)
    assert processes_with(f"AGENTCOMPASS_ROOT={ws}") == []  # the daemons too
    assert [p.name for p in ws.iterdir()] == []  # no workspace, no marker
    lines = err.strip().splitlines()
    assert lines[-2] == "agentcompass: terminated (SIGTERM); finished results are kept"
    assert lines[-1].startswith("agentcompass: resume with: agentcompass run demo nop none ")
    assert lines[-1].endswith(f" --reuse {run_dir.name}")


def test_sigterm_stops_a_launch(tmp_path):
    ws = tmp_path / "ws"
    spec = {
        "version": 1,
        "name": "term",
        "task_concurrency": 2,
        "runtime": {"results_dir": str(tmp_path / "out"), "progress": "none"},
        "defaults": {
            "benchmark": {"id": "demo"},
            "environment": {"id": "local", "root_dir": str(ws)},
            "harness": {"id": "nop", "_target_": EXEC, "command": "sleep 321"},
        },
        "requests": [{"name": "a"}, {"name": "b"}],
    }
    path = tmp_path / "orch.yaml"
    path.write_text(yaml.safe_dump(spec))
    proc = start_cli("launch", str(path))
    try:
        wait_for(lambda: len(processes_with(f"AGENTCOMPASS_ROOT={ws}")) >= 2, 90, "two attempts")
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    code, err = terminate(proc)
    assert code == 143, err
    for name in ("a", "b"):
        (run_dir,) = (tmp_path / "out" / name).iterdir()
        check_cancelled(run_dir)
    assert processes_with(f"AGENTCOMPASS_ROOT={ws}") == [] and list(ws.iterdir()) == []
    assert err.strip().splitlines()[-1] == f"agentcompass: resume with: agentcompass launch {path} --reuse"


def test_ctrl_c_prints_the_command_that_resumes_the_run(tmp_path):
    proc = start_cli(
        "run",
        "synthetic",
        "nop",
        "none",
        "--env",
        "memory",
        "--results-dir",
        str(tmp_path),
        "--run-name",
        "ctrl-c",
        "--progress",
        "none",
        "harness._target_=tests.run_support.GateHarness",
        f"+harness.gate={tmp_path / 'never'}",
    )
    try:
        wait_for(lambda: list(tmp_path.glob("ctrl-c/*/tasks/*/sample-1/attempt-1")), 60, "an attempt")
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    (run_dir,) = (tmp_path / "ctrl-c").iterdir()
    check_cancelled(run_dir)
    lines = err.strip().splitlines()
    assert lines[-2] == "agentcompass: interrupted; finished results are kept"
    resume = lines[-1].removeprefix("agentcompass: resume with: ")
    assert resume.startswith("agentcompass run synthetic nop none --env memory ") and "--run-id" not in resume
    assert resume.endswith(f" --reuse {run_dir.name}")
    (tmp_path / "never").touch()  # the printed command resumes and finishes it
    out = subprocess.run(
        [sys.executable, "-m", "agentcompass", *shlex.split(resume)[1:]],
        cwd=REPO,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert read_json(run_dir / "run.json")["status"] == "completed"
