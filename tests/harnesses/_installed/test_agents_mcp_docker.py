"""Agent programs on a tool-use benchmark in docker: the scripted calculator conversation served over the gateway's
MCP route, each agent (driven by the scripted model server) calling the conversation's tools and the user tool by
the names it gives them; the calls reach the conversation, which grades 1, and are recorded in mcp_calls.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcompass.conversation import USER_TOOL
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.environments.docker_support import BASE_IMAGE, remove_session_containers, require_engine
from tests.gateway import mcp_support
from tests.harnesses._installed import agent_support as support

pytestmark = [pytest.mark.docker, pytest.mark.slow]
AGENTS = ["claude_code", "codex", "opencode", "qwen_code"]
STEPS = mcp_support.SCRIPT[:5]  # add, tell, reverse, tell, tell (the user's farewell ends it)


@pytest.fixture(autouse=True)
def _engine():
    require_engine()
    yield
    remove_session_containers()


@pytest.mark.parametrize("agent", AGENTS)
def test_agent_converses_over_mcp_in_docker(agent: str, tmp_path: Path) -> None:
    with ScriptedModelServer(support.conversation_script(STEPS)) as srv:
        result = support.run(
            agent,
            "docker",
            srv,
            tmp_path,
            [],
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
    assert [(x["tool"], x["arguments"]) for x in lines] == [(n, a) for n, a in STEPS]
    assert not any(x["is_error"] for x in lines) and lines[-1]["done"]
    transcript = row["agent"]["transcript"]
    assert transcript["termination"] == "user_stop"
    calls = [c["name"] for m in transcript["messages"] for c in m.get("tool_calls", [])]
    assert calls == [n for n, _ in STEPS if n != USER_TOOL]
    assert row["reward"] == 1.0
    prompt = json.dumps(srv.requests[0]["body"])
    assert "calculator desk" in prompt and USER_TOOL in prompt  # the conversation's system prompt and the how-to


def test_claude_code_completes_a_tau2_airline_task_over_mcp(tmp_path: Path, tau2_root: Path) -> None:
    """τ²-bench airline task 1 in docker: the scripted user gives its id and then stops; Claude Code (scripted)
    looks the user up with the task's tool and answers through the user tool; graded by the reference evaluator."""
    steps = [
        ("get_user_details", {"user_id": "raj_sanchez_7340"}),
        (USER_TOOL, {"message": "I found your profile, Raj."}),
    ]
    agent = support.conversation_script(steps)

    def reply(request):
        if request["body"].get("model") == "user-model":
            said = sum(1 for m in request["body"]["messages"] if m["role"] == "assistant")
            return {"text": "My user id is raj_sanchez_7340." if said == 0 else "Thanks! ###STOP###"}
        return agent(request)

    with ScriptedModelServer(reply) as srv:
        result = support.run(
            "claude_code",
            "docker",
            srv,
            tmp_path,
            [],
            benchmark="tau2_airline",
            benchmark_params={"dataset_path": str(tau2_root), "sample_ids": ["1"], "image": BASE_IMAGE},
            model_roles={"user": {"id": "user-model"}},
        )
    (row,) = support.attempts(tmp_path).values()
    assert result["metrics"]["n_errors"] == 0, row.get("error")
    lines = [json.loads(x) for x in (Path(row["_dir"]) / "mcp_calls.jsonl").read_text().splitlines()]
    assert [(x["tool"], x["arguments"]) for x in lines] == steps
    assert "raj_sanchez_7340" in lines[0]["result"] and not lines[0]["is_error"]
    transcript = row["agent"]["transcript"]
    assert transcript["termination"] == "user_stop"
    assert [c["name"] for m in transcript["messages"] for c in m.get("tool_calls", [])] == ["get_user_details"]
    assert row["reward"] == 1.0 and row["usage_by_role"]["user"]["calls"] == 2
