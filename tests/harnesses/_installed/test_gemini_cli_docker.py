"""Gemini CLI in docker (the offline base image, no network but the gateway's address on the bridge), its build
delivered by the read-only mount of the session's agent cache, on the gateway's Gemini API in front of the scripted
server speaking OpenAI Chat (so its API is translated): both demo tasks solved by its own tool calls, usage from the
gateway, the planted key in no file of the run; and on an endpoint of its own API (passed on)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.environments.docker_support import remove_session_containers, require_engine
from tests.harnesses._installed import agent_support as support
from tests.harnesses._installed import gemini_support

pytestmark = [pytest.mark.docker, pytest.mark.slow]
AGENT = "gemini_cli"


@pytest.fixture(autouse=True)
def _engine():
    require_engine()
    yield
    remove_session_containers()


@pytest.mark.parametrize("endpoint", ["openai-chat", "google-genai"])
def test_gemini_cli_solves_the_demo_tasks_in_docker(endpoint: str, tmp_path: Path) -> None:
    tasks = ["hello-file", "fix-python-script"] if endpoint == "openai-chat" else ["hello-file"]
    with ScriptedModelServer(gemini_support.script()) as srv:
        result = support.run(AGENT, "docker", srv, tmp_path, tasks, protocol=endpoint)
    rows = support.attempts(tmp_path)
    assert result["metrics"]["n_errors"] == 0, {k: v.get("error") for k, v in rows.items()}
    assert {k: v["reward"] for k, v in rows.items()} == dict.fromkeys(tasks, 1.0)
    assert {r["protocol"] for r in srv.requests if r.get("protocol")} == {endpoint}  # its own tools reached it
    assert any(r["body"].get("tools") for r in srv.requests)
    for task, row in rows.items():
        calls = support.gateway_calls(row["_dir"])
        assert calls and all(c["status"] == "ok" for c in calls), (task, [(c["status"], c["error"]) for c in calls])
        assert {c["agent_protocol"] for c in calls} == {"google-genai"}
        assert {c["upstream_protocol"] for c in calls} == {endpoint}
        answered = [c for c in calls if not c["request"].get("path")]  # countTokens calls spend no tokens
        assert row["usage"]["input"] == len(answered) * support.USAGE["input_tokens"], (task, row["usage"])
        info = row["agent"]["info"]
        assert info["platform"]["libc"] == "glibc" and info["exit_code"] == 0
        assert (Path(row["_dir"]) / "agent" / "gemini-cli.txt").is_file()
        assert (Path(row["_dir"]) / "trajectory.json").is_file()
    run_dir = Path(result["paths"]["run_dir"])
    for path in run_dir.rglob("*"):
        if path.is_file():
            assert support.KEY not in path.read_text(errors="replace"), path


def test_gemini_cli_converses_over_mcp_in_docker(tmp_path: Path) -> None:
    """The calculator conversation over the gateway's MCP route (as ``test_agents_mcp_docker`` for the others), on an
    OpenAI Chat endpoint: Gemini CLI's calls of the MCP tools reach the conversation, which grades 1."""
    import json

    from agentcompass.conversation import USER_TOOL
    from tests.environments.docker_support import BASE_IMAGE
    from tests.gateway import mcp_support

    steps = mcp_support.SCRIPT[:5]
    with ScriptedModelServer(support.conversation_script(steps)) as srv:
        result = support.run(
            AGENT,
            "docker",
            srv,
            tmp_path,
            [],
            protocol="openai-chat",
            benchmark="synthetic",
            benchmark_params={
                "_target_": "agentcompass.testing.conversation.CalculatorBenchmark",
                "n_tasks": 1,
                "image": BASE_IMAGE,
            },
        )
    (row,) = support.attempts(tmp_path).values()
    assert result["metrics"]["n_errors"] == 0, row.get("error")
    lines = [json.loads(x) for x in (Path(row["_dir"]) / "mcp_calls.jsonl").read_text().splitlines()]
    assert [(x["tool"], x["arguments"]) for x in lines] == [(n, a) for n, a in steps]
    assert row["agent"]["transcript"]["termination"] == "user_stop" and row["reward"] == 1.0
    assert USER_TOOL in json.dumps(srv.requests[0]["body"])
