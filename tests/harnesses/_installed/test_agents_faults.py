"""Faults around a real agent program: SIGTERM and kill -9 of agentcompass during the agent phase (nothing left
after ``agentcompass cleanup``; locally the agent's processes end with their owner already; ``--reuse`` completes
the run), a task that denies the internet (one clear line),
a missing build without the flag (one line, exit 2)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.environments.docker_support import TEST_LABELS, api, remove_session_containers, require_engine
from tests.harnesses._installed import agent_support as support
from tests.run_support import processes_with, run_cli, start_cli, terminate, wait_for

AGENT = "claude_code"
DEMO = Path(__file__).resolve().parents[3] / "agentcompass" / "benchmarks" / "demo_tasks"


def _stuck(request: dict) -> dict:
    """The agent runs a command that outlasts the test, and should it come back (Claude Code may move a long
    command to the background), the model's next answer does too: the agent phase stays under way."""
    if not request["body"].get("tools"):
        return {"text": "Done.", "usage": support.USAGE}
    if support.CALL_ID in json.dumps(request["body"]):
        return {"text": "Done.", "usage": support.USAGE, "delay_s": 600}
    call = {"id": support.CALL_ID, "name": "Bash", "arguments": {"command": "sleep 300", "description": "wait"}}
    return {"text": "", "tool_calls": [call], "usage": support.USAGE}


LOCAL_ROOT = Path(tempfile.gettempdir()) / f"agentcompass-local-{os.getuid()}"  # the local default (cleanup's)


def _workspaces(run_id: str) -> list[Path]:
    found = []
    for marker in LOCAL_ROOT.glob("*.json"):
        try:
            if json.loads(marker.read_text()).get("run_id") == run_id:
                found.append(marker.with_suffix(""))
        except (OSError, ValueError):
            continue
    return found


class Switch:
    """Replies that keep the agent busy (``stuck``), then ones that solve the task: one server (one base URL, which
    a reused run must keep) for the stopped run and its resumption."""

    def __init__(self) -> None:
        self.stuck = True
        self.solve = support.script(AGENT, root=LOCAL_ROOT)

    def __call__(self, request: dict) -> dict:
        return _stuck(request) if self.stuck else self.solve(request)


def _args(srv: ScriptedModelServer, tmp_path: Path, env: str, run_id: str, *extra: str) -> list[str]:
    params = {"labels": dict(TEST_LABELS)} if env == "docker" else {}
    return [
        *("run", "demo", AGENT, "scripted-model", "--env", env, "--run-id", run_id),
        *("--benchmark-params", json.dumps({"sample_ids": ["hello-file"]}), "--env-params", json.dumps(params)),
        *("--model-base-url", srv.base_url, "--model-api-key", support.KEY),
        *("--model-api-protocol", "anthropic-messages", "--results-dir", str(tmp_path / "out")),
        *("--data-dir", str(support.agent_cache()), "--auto-install-dependencies", "--progress", "none", *extra),
    ]


def _in_agent_phase(srv: ScriptedModelServer) -> bool:
    return any(r["body"].get("tools") for r in srv.requests)


def _containers(run_id: str) -> list[dict]:
    return api().containers(all=True, filters={"label": [f"agentcompass.run_id={run_id}"]})


def _reuse_completes(srv: ScriptedModelServer, switch: Switch, tmp_path: Path, env: str, run_id: str) -> None:
    switch.stuck = False
    done = run_cli(*_args(srv, tmp_path, env, run_id, "--reuse", run_id), timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    (result,) = tmp_path.joinpath("out").rglob("results.jsonl")
    rows = [json.loads(line) for line in result.read_text().splitlines()]
    assert [(r["task_id"], r["reward"]) for r in rows] == [("hello-file", 1.0)]


@pytest.mark.docker
@pytest.mark.slow
def test_sigterm_and_kill_during_the_agent_phase_in_docker(tmp_path: Path) -> None:
    require_engine()
    try:
        with ScriptedModelServer(_stuck) as srv:
            proc = start_cli(*_args(srv, tmp_path, "docker", "sig-1"))
            wait_for(lambda: _in_agent_phase(srv), 300, "the agent's first model call")
            code, err = terminate(proc)
        assert code == 143, err[-2000:]
        assert _containers("sig-1") == []  # SIGTERM: the container went with the run
        switch = Switch()
        with ScriptedModelServer(switch) as srv:
            proc = start_cli(*_args(srv, tmp_path / "k", "docker", "kill-1"))
            wait_for(lambda: _in_agent_phase(srv), 300, "the agent's first model call")
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)
            assert _containers("kill-1"), "kill -9 leaves the container until cleanup"
            cleaned = run_cli("cleanup", "--run-id", "kill-1", "--env", "docker")
            assert cleaned.returncode == 0, cleaned.stderr
            assert _containers("kill-1") == []
            _reuse_completes(srv, switch, tmp_path / "k", "docker", "kill-1")
    finally:
        remove_session_containers()


@pytest.mark.slow
def test_kill_during_the_agent_phase_locally_leaves_no_process_after_cleanup(tmp_path: Path) -> None:
    run_id, switch = f"kill-{uuid.uuid4().hex[:8]}", Switch()
    with ScriptedModelServer(switch) as srv:
        proc = start_cli(*_args(srv, tmp_path, "local", run_id))
        wait_for(lambda: _in_agent_phase(srv), 300, "the agent's first model call")
        (ws,) = wait_for(lambda: _workspaces(run_id), 60, "the attempt's workspace")
        wait_for(lambda: processes_with(f"AGENTCOMPASS_ROOT={ws}"), 60, "the agent's processes")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        # the environment's supervisor sees its owner die and ends the agent's processes itself (no cleanup needed
        # for them); cleanup then removes the workspace
        wait_for(lambda: not processes_with(f"AGENTCOMPASS_ROOT={ws}"), 60, "no process of the workspace")
        cleaned = run_cli("cleanup", "--run-id", run_id, "--env", "local")
        assert cleaned.returncode == 0, cleaned.stderr
        assert not ws.exists()
        _reuse_completes(srv, switch, tmp_path, "local", run_id)


@pytest.mark.docker
@pytest.mark.slow
def test_a_task_without_internet_reaches_the_model_only_or_fails_in_one_line(tmp_path: Path) -> None:
    """``allow_internet = false``: the container has no network; either the agent reaches the model (the gateway
    inside the container's network namespace) and nothing else, or the attempt fails with one line naming the
    gateway's reachability, and nothing reached the model."""
    require_engine()
    task = tmp_path / "tasks" / "offline-hello"
    shutil.copytree(DEMO / "hello-file", task)
    toml = (task / "task.toml").read_text().replace("[environment]", "[environment]\nallow_internet = false")
    (task / "task.toml").write_text(toml)
    try:
        with ScriptedModelServer(support.script(AGENT)) as srv:
            done = run_cli(
                *("run", "terminal_bench", AGENT, "scripted-model", "--env", "docker", "--keep-environment"),
                *("--benchmark-params", json.dumps({"dataset_path": str(tmp_path / "tasks")})),
                *("--env-params", json.dumps({"labels": dict(TEST_LABELS)}), "--model-base-url", srv.base_url),
                *("--model-api-key", support.KEY, "--model-api-protocol", "anthropic-messages"),
                *("--results-dir", str(tmp_path / "out"), "--data-dir", str(support.agent_cache())),
                *("--auto-install-dependencies", "--progress", "none"),
                timeout=600,
            )
        kept = api().containers(all=True, filters={"label": [f"{k}={v}" for k, v in TEST_LABELS.items()]})
        modes = {api().inspect_container(c["Id"])["HostConfig"]["NetworkMode"] for c in kept}
    finally:
        remove_session_containers()
    (result,) = (tmp_path / "out").rglob("result.json")
    row = json.loads(result.read_text())
    assert modes == {"none"}, modes  # the agent's container had no network at all
    if row.get("error"):
        text = json.dumps(row["error"])
        assert "cannot reach the model gateway" in text or "GatewayUnreachable" in text, text
        assert "\n" not in str(row["error"]).strip() and done.returncode == 1
        assert srv.requests == []  # nothing reached the model
    else:
        assert row["reward"] == 1.0 and srv.requests, done.stderr[-2000:]  # the model, through the gateway only


def test_a_missing_build_without_the_flag_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with ScriptedModelServer(support.script(AGENT)) as srv:
        done = subprocess.run(
            [
                *(sys.executable, "-m", "agentcompass", "run", "demo", AGENT, "scripted-model", "--env", "local"),
                *("--model-base-url", srv.base_url, "--model-api-protocol", "anthropic-messages"),
                *("--model-api-key", support.KEY, "--results-dir", str(tmp_path / "out")),
                *("--data-dir", str(tmp_path / "empty-cache"), "--progress", "none"),
                *("--benchmark-params", json.dumps({"sample_ids": ["hello-file"]})),
            ],
            cwd=Path(__file__).resolve().parents[3],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "--auto-install-dependencies" in done.stderr and "fetch claude_code" in done.stderr, done.stderr[-2000:]
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("result.json"))
    assert support.KEY not in done.stderr + done.stdout


@pytest.mark.slow
def test_the_agent_timeout_ends_the_agent_and_the_attempt_is_verified(tmp_path: Path) -> None:
    """A 20 s agent timeout against an agent stuck in a 300 s command: the command ends (its whole process tree)
    before the timeout, the attempt is ``agent_timeout`` and verified (reward 0), no process of it is left."""
    ws = tmp_path / "ws"
    with ScriptedModelServer(_stuck) as srv:
        result = support.run(
            AGENT, "local", srv, tmp_path, ["hello-file"], execution_params={"timeouts": {"agent": 20}}
        )
    (row,) = support.attempts(tmp_path).values()
    assert row["agent"]["exit_status"] == "agent_timeout" and row["agent"]["limit_hit"] == "agent_timeout"
    assert row["reward"] == 0.0 and result["metrics"]["n_errors"] == 0
    assert not processes_with(f"AGENTCOMPASS_ROOT={ws}")
