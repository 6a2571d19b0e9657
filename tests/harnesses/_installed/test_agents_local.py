"""The real agent programs in the local environment, driven through the gateway by scripted replies that make the
agents' own tool calls: both demo tasks solved (reward 1), a do-nothing script scores 0, the requests are the
agent's own (its system prompt and tools), usage is the gateway's count of the scripted server's figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.harnesses._installed import agent_support as support

AGENTS = ["claude_code", "codex", "opencode", "qwen_code"]
# a fragment of each agent's own system prompt and one of its own tool names, as they reach the server
OWN = {
    "claude_code": ("Claude", "Bash"),
    "codex": ("Codex", "exec_command"),
    "opencode": ("opencode", "bash"),
    "qwen_code": ("Qwen Code", "run_shell_command"),
    "pi": ("inside pi", "bash"),
    "cline": ("You are Cline", "run_commands"),
    "kilo": ("Kilo", "bash"),
}
NODE_AGENTS = ["pi", "cline", "kilo"]  # solving only (their docker test is tests/.../test_node_agents_docker.py)


def _tool_names(body: dict) -> set[str]:
    names = set()
    for tool in body.get("tools") or []:
        names.add(tool.get("name") or (tool.get("function") or {}).get("name") or "")
    return names


@pytest.mark.slow
@pytest.mark.parametrize("agent", AGENTS + NODE_AGENTS)
def test_agent_solves_the_demo_tasks_locally(agent: str, tmp_path: Path) -> None:
    with ScriptedModelServer(support.script(agent, root=tmp_path / "ws")) as srv:
        result = support.run(agent, "local", srv, tmp_path, ["hello-file", "fix-python-script"])
    rows = support.attempts(tmp_path)
    assert result["metrics"]["n_errors"] == 0, {k: v.get("error") for k, v in rows.items()}
    assert {k: v["reward"] for k, v in rows.items()} == {"hello-file": 1.0, "fix-python-script": 1.0}
    prompt, tool = OWN[agent]
    with_tools = [r for r in srv.requests if r["body"].get("tools")]
    assert with_tools and all(tool in _tool_names(r["body"]) for r in with_tools)
    assert any(prompt in str(r["body"].get("system") or r["body"].get("instructions") or r["body"]) for r in with_tools)
    for task, row in rows.items():
        calls = support.gateway_calls(row["_dir"])
        assert calls and all(c["source"] == "gateway" for c in calls), task
        assert all(c["status"] == "ok" for c in calls), (task, [(c["status"], c["error"]) for c in calls])
        n = len([c for c in calls if not c["request"].get("path")])  # count_tokens calls spend no tokens
        assert row["usage"]["input"] == n * support.USAGE["input_tokens"], (task, row["usage"], len(calls))
        assert row["usage"]["output"] == n * support.USAGE["output_tokens"]
        trajectory = Path(row["agent"]["trajectory_path"])
        assert trajectory.is_file() and '"source": "agent"' in trajectory.read_text()
    served = len([r for r in srv.requests if r.get("protocol")])
    assert sum(r["usage"]["calls"] for r in rows.values()) == served


@pytest.mark.slow
@pytest.mark.parametrize("agent", AGENTS)
def test_a_do_nothing_script_scores_zero(agent: str, tmp_path: Path) -> None:
    with ScriptedModelServer(support.script(agent, act=False)) as srv:
        result = support.run(agent, "local", srv, tmp_path, ["hello-file"])
    assert result["metrics"]["n_errors"] == 0 and result["metrics"]["mean_reward"] == 0.0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("agent", "endpoint"),
    [("claude_code", "openai-chat"), ("codex", "anthropic-messages")],
)
def test_an_agent_on_an_endpoint_of_another_protocol(agent: str, endpoint: str, tmp_path: Path) -> None:
    """The gateway translates: Claude Code (Anthropic Messages) on an OpenAI Chat endpoint, Codex (OpenAI
    Responses) on an Anthropic Messages endpoint; the scripted server sees only the endpoint's protocol, and what
    the translation leaves out of the agent's requests is recorded as a warning of each call."""
    with ScriptedModelServer(support.script(agent, root=tmp_path / "ws")) as srv:
        result = support.run(agent, "local", srv, tmp_path, ["hello-file"], protocol=endpoint)
    rows = support.attempts(tmp_path)
    assert result["metrics"]["n_errors"] == 0, {k: v.get("error") for k, v in rows.items()}
    assert rows["hello-file"]["reward"] == 1.0
    assert {r["protocol"] for r in srv.requests if r.get("protocol")} == {endpoint}
    calls = support.gateway_calls(rows["hello-file"]["_dir"])
    assert {(c["agent_protocol"], c["upstream_protocol"]) for c in calls} == {(support.PROTOCOL[agent], endpoint)}
    assert all(c["status"] == "ok" for c in calls)
    # Claude Code's context_management (clear_thinking) has nothing to clear; Codex's client_metadata is not sent
    left_out = {"claude_code": "context_management edit 'clear_thinking_20251015'", "codex": "client_metadata"}
    assert all(any(w.startswith(left_out[agent]) for w in c["warnings"]) for c in calls), [c["warnings"] for c in calls]
    if agent == "claude_code":
        asked = [r["body"] for r in srv.requests if r["body"].get("tools")]
        # its effort setting arrives as reasoning_effort, its system-role message as a system message after the user's
        assert {b.get("reasoning_effort") for b in asked} == {"high"}
        assert all([m["role"] for m in b["messages"]][:3] == ["system", "user", "system"] for b in asked)


@pytest.mark.slow
def test_an_agent_stopped_by_the_gateways_call_limit_ends_limits_exceeded(tmp_path: Path) -> None:
    """Claude Code's second call is refused at execution.attempt_max_model_calls=1 (the 400 in its API's shape):
    the program exits non-zero, and the attempt ends ``limits_exceeded`` naming the limit, not as an agent error;
    it is verified as usual (the file written on the first call's tool call scores), its trajectory kept."""
    with ScriptedModelServer(support.script("claude_code", root=tmp_path / "ws")) as srv:
        result = support.run(
            "claude_code", "local", srv, tmp_path, ["hello-file"], execution_params={"attempt_max_model_calls": 1}
        )
        served = len([r for r in srv.requests if r.get("protocol")])
    (row,) = support.attempts(tmp_path).values()
    assert result["metrics"]["n_errors"] == 0, row.get("error")
    agent = row["agent"]
    assert agent["exit_status"] == "limits_exceeded" and agent["limit_hit"] == "max_model_calls", agent
    assert "exited with code" in agent["info"]["agent_error"]  # the program's own exit after the refusal
    assert agent["info"]["exit_code"] != 0 and agent["trajectory_path"]
    assert row["reward"] == 1.0  # verified: the first call's tool call wrote hello.txt
    calls = support.gateway_calls(row["_dir"])
    assert served == 1 and [c["status"] for c in calls][:2] == ["ok", "limit"]
    assert row["usage"]["input"] == support.USAGE["input_tokens"]
