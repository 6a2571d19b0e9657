"""The real agent programs in docker (the offline base image, no network but the gateway's address on the bridge),
their builds delivered by the read-only mount of the session's agent cache: both demo tasks solved by each agent's
own tool calls, usage from the gateway; the planted key in no file of the run and nowhere in the container."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.environments.docker_support import TEST_LABELS, api, remove_session_containers, require_engine
from tests.harnesses._installed import agent_support as support
from tests.run_support import run_cli

pytestmark = [pytest.mark.docker, pytest.mark.slow]
AGENTS = ["claude_code", "codex", "opencode", "qwen_code"]
# Qwen Code sizes Node from the host's memory and passed 1 GB (the demo tasks' limit) after a shell command
ENV_PARAMS = {"qwen_code": {"memory": "3G"}}


@pytest.fixture(autouse=True)
def _engine():
    require_engine()
    yield
    remove_session_containers()


def _bridge_server(agent: str) -> ScriptedModelServer:
    return ScriptedModelServer(support.script(agent))


@pytest.mark.parametrize("agent", AGENTS)
def test_agent_solves_the_demo_tasks_in_docker(agent: str, tmp_path: Path) -> None:
    with _bridge_server(agent) as srv:
        result = support.run(
            agent,
            "docker",
            srv,
            tmp_path,
            ["hello-file", "fix-python-script"],
            environment_params=ENV_PARAMS.get(agent, {}),
        )
    rows = support.attempts(tmp_path)
    assert result["metrics"]["n_errors"] == 0, {k: v.get("error") for k, v in rows.items()}
    assert {k: v["reward"] for k, v in rows.items()} == {"hello-file": 1.0, "fix-python-script": 1.0}
    for task, row in rows.items():
        calls = support.gateway_calls(row["_dir"])
        assert calls and all(c["status"] == "ok" for c in calls), (task, [(c["status"], c["error"]) for c in calls])
        answered = [c for c in calls if not c["request"].get("path")]  # count_tokens calls spend no tokens
        assert row["usage"]["input"] == len(answered) * support.USAGE["input_tokens"], (task, row["usage"])
        info = row["agent"]["info"]
        assert info["platform"]["libc"] == "glibc" and info["exit_code"] == 0
        assert (Path(row["_dir"]) / "agent" / info["native_log"].rsplit("/", 1)[-1]).is_file()


@pytest.mark.parametrize(("agent", "endpoint"), [("claude_code", "openai-chat"), ("codex", "anthropic-messages")])
def test_an_agent_on_an_endpoint_of_another_protocol_in_docker(agent: str, endpoint: str, tmp_path: Path) -> None:
    """Through the gateway's translation, in docker: Claude Code on an OpenAI Chat endpoint, Codex on an Anthropic
    Messages one, both demo tasks solved; the endpoint sees only its protocol, every call is ok."""
    with _bridge_server(agent) as srv:
        result = support.run(agent, "docker", srv, tmp_path, ["hello-file", "fix-python-script"], protocol=endpoint)
    rows = support.attempts(tmp_path)
    assert result["metrics"]["n_errors"] == 0, {k: v.get("error") for k, v in rows.items()}
    assert {k: v["reward"] for k, v in rows.items()} == {"hello-file": 1.0, "fix-python-script": 1.0}
    assert {r["protocol"] for r in srv.requests if r.get("protocol")} == {endpoint}
    for task, row in rows.items():
        calls = support.gateway_calls(row["_dir"])
        assert calls and all(c["status"] == "ok" and c["upstream_protocol"] == endpoint for c in calls), task


def _container_text(cid: str) -> str:
    """Everything of the container a secret could hide in: its config (env), every process's environment and
    the contents of its whole file system (read from inside; /proc, /sys and the read-only agents cache excluded)."""
    inspect = json.dumps(api().inspect_container(cid))
    skip = " ".join(f"--exclude-dir={d}" for d in ("proc", "sys", "dev", "agentcompass"))
    script = (
        f"cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'; grep -rIl {skip} -e \"$NEEDLE\" / 2>/dev/null || true"
    )
    out = subprocess.run(
        ["docker", "exec", "-e", f"NEEDLE={support.KEY}", cid, "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=600,
    )
    return inspect + out.stdout


def test_the_planted_key_is_nowhere(tmp_path: Path) -> None:
    agent = "claude_code"
    with _bridge_server(agent) as srv:
        result = support.run(agent, "docker", srv, tmp_path, ["hello-file"], keep_environment=True)
    assert result["metrics"]["mean_reward"] == 1.0
    run_dir = Path(result["paths"]["run_dir"])
    for path in run_dir.rglob("*"):
        if path.is_file():
            assert support.KEY not in path.read_text(errors="replace"), path
    exported = tmp_path / "harbor"
    done = run_cli("export", "harbor", str(run_dir), str(exported))
    assert done.returncode == 0, done.stderr
    (trajectory,) = [p for p in exported.rglob("*.json") if "traj" in p.name]  # the ATIF for harbor view
    assert json.loads(trajectory.read_text())["schema_version"].startswith("ATIF")
    assert all(support.KEY not in p.read_text(errors="replace") for p in exported.rglob("*") if p.is_file())
    kept = api().containers(all=True, filters={"label": [f"{k}={v}" for k, v in TEST_LABELS.items()]})
    assert kept, "keep_environment left no container to inspect"
    for container in kept:
        found = _container_text(container["Id"])
        assert support.KEY not in found.replace(f"NEEDLE={support.KEY}", "")


def test_claude_code_in_a_compose_tasks_main_service(tmp_path: Path) -> None:
    """The build reaches a compose project's ``main`` service through the same read-only mount; the agent's
    command fetches the answer from the project's side service."""
    from tests.benchmarks.terminal_bench.compose_fixtures import web_secret

    web_secret(tmp_path / "tasks", agent_timeout=240.0)
    with _bridge_server("claude_code") as srv:
        result = support.run(
            "claude_code",
            "docker",
            srv,
            tmp_path,
            [],
            benchmark="terminal_bench",
            benchmark_params={"dataset_path": str(tmp_path / "tasks")},
        )
    rows = support.attempts(tmp_path)
    assert result["metrics"]["n_errors"] == 0, {k: v.get("error") for k, v in rows.items()}
    assert [r["reward"] for r in rows.values()] == [1.0]
