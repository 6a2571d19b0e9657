"""The ``tool_agent`` harness on every model protocol, driving a real τ²-bench conversation (airline task 0, the
domain environment and the user simulator) against the scripted model server; its limits and failures."""

from __future__ import annotations

import asyncio
import functools
import json
from pathlib import Path
from typing import Any

import pytest

from agentcompass._config.registry import build
from agentcompass.benchmarks.tau2.conversation import Tau2Conversation
from agentcompass.errors import ConfigError
from agentcompass.interfaces import AttemptContext, ComponentContext, Task
from agentcompass.testing.scripted_server import ScriptedModelServer

PROTOCOLS = ("openai-chat", "openai-responses", "anthropic-messages")


def user_id(root: Path) -> str:
    db = json.loads((root / "data/tau2/domains/airline/db.json").read_text())
    return next(iter(db["users"]))


def replies(root: Path) -> Any:
    """Agent: a lookup, then text; user: a request, then a stop."""
    scripts = {
        "agent": [
            {"tool_calls": [{"id": "c1", "name": "get_user_details", "arguments": {"user_id": user_id(root)}}]},
            "I found you. Anything else?",
        ],
        "user": ["I need help with my booking.", "No. ###STOP###"],
    }
    used: dict[str, int] = {}

    def reply(request: dict[str, Any]) -> Any:
        role = request["body"]["model"]
        used[role] = used.get(role, 0) + 1
        return scripts[role][used[role] - 1]

    return reply


def model(srv: ScriptedModelServer, tmp: Path, name: str, protocol: str = "openai-chat") -> Any:
    base = srv.base_url if protocol != "anthropic-messages" else srv.base_url.removesuffix("/v1")
    cfg = {
        "_target_": "agentcompass.models.client.Model",
        "id": name,
        "base_url": base,
        "api_key": "sk-test",
        "api_protocol": protocol,
        "max_retries": 0,
    }
    return build("model", cfg, ComponentContext(data_dir=tmp))


async def attempt(
    root: Path,
    srv: ScriptedModelServer,
    tmp: Path,
    protocol: str = "openai-chat",
    system_prompt: bool = True,
    **params: Any,
) -> tuple[Any, Tau2Conversation]:
    factory = airline(root)
    task = next(t for t in factory.tasks() if t["id"] == "0")
    user = model(srv, tmp, "user")
    conversation = Tau2Conversation(root, factory(), task, user, seed=7)
    if not system_prompt:
        conversation.system_prompt = None
    harness = build(
        "harness",
        {"_target_": "agentcompass.harnesses.tool_agent.ToolAgentHarness", "id": "tool_agent", **params},
        ComponentContext(data_dir=tmp),
    )
    ctx = AttemptContext(
        task=Task(id="0", instruction=""), attempt=1, attempt_dir=tmp, benchmark=None, conversation=conversation
    )  # type: ignore[arg-type]
    agent = model(srv, tmp, "agent", protocol)
    try:
        return await harness.run(ctx.task, None, agent, ctx), conversation  # type: ignore[arg-type]
    finally:
        await agent.aclose()
        await user.aclose()


@functools.lru_cache(maxsize=2)
def airline(root: Path) -> Any:
    """The airline domain's factory (its source parsed once; each call of it makes a fresh environment)."""
    from agentcompass.benchmarks.tau2.domains import load_domain

    return load_domain(root, "airline")


def agent_requests(srv: ScriptedModelServer) -> list[dict[str, Any]]:
    return [r for r in srv.requests if r["body"]["model"] == "agent"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_conversation_on_every_protocol(tau2_root, tmp_path, protocol):
    with ScriptedModelServer(replies=replies(tau2_root)) as srv:
        result, conversation = asyncio.run(attempt(tau2_root, srv, tmp_path, protocol))
    assert result.transcript is conversation.transcript and result.transcript.termination == "user_stop"
    assert [m.role for m in result.transcript.messages] == [
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    tool = result.transcript.messages[3]
    assert not tool.error and user_id(tau2_root) in tool.content
    requests = agent_requests(srv)
    assert len(requests) == result.n_turns == 2 and result.usage.n_calls == 2
    second = json.dumps(requests[1]["body"])
    assert json.dumps(tool.content)[1:-1] in second  # the tool's result reached the model, in the protocol's form
    assert conversation.system_prompt is not None and json.dumps(conversation.system_prompt)[1:60] in second
    assert "get_user_details" in json.dumps(requests[0]["body"]["tools"])
    assert requests[0]["body"].get("temperature") == 0.0


def test_no_system_prompt_no_system_message(tau2_root, tmp_path):
    with ScriptedModelServer(replies=replies(tau2_root)) as srv:
        asyncio.run(attempt(tau2_root, srv, tmp_path, system_prompt=False))
    first = agent_requests(srv)[0]["body"]["messages"]
    assert [m["role"] for m in first] == ["assistant", "user"]


def test_params_and_the_conversation_seed(tau2_root, tmp_path):
    with ScriptedModelServer(replies=replies(tau2_root)) as srv:
        asyncio.run(attempt(tau2_root, srv, tmp_path, params={"temperature": 0.5, "max_tokens": 64}))
    body = agent_requests(srv)[0]["body"]
    assert (body["temperature"], body["max_tokens"], body["seed"], body["tool_choice"]) == (0.5, 64, 7, "auto")


def test_its_step_limit_ends_the_conversation(tau2_root, tmp_path):
    with ScriptedModelServer(replies=replies(tau2_root)) as srv:
        result, conversation = asyncio.run(attempt(tau2_root, srv, tmp_path, max_steps=1))
    assert (result.limit_hit, result.n_turns, result.exit_status) == ("step_limit", 1, "limits_exceeded")
    assert conversation.done and result.transcript.termination == "harness_limit"


def test_arguments_that_are_not_json_end_it_as_an_agent_error(tau2_root, tmp_path):
    bad = {"tool_calls": [{"id": "c1", "name": "get_user_details", "arguments": "{not json"}]}
    script = {"agent": [bad], "user": ["Hello."]}
    with ScriptedModelServer(replies=lambda r: script[r["body"]["model"]].pop(0)) as srv:
        result, _ = asyncio.run(attempt(tau2_root, srv, tmp_path))
    assert result.transcript.termination == "agent_error" and result.n_format_errors == 1


def test_it_needs_a_conversation(tmp_path):
    harness = build(
        "harness",
        {"_target_": "agentcompass.harnesses.tool_agent.ToolAgentHarness", "id": "tool_agent"},
        ComponentContext(data_dir=tmp_path),
    )
    ctx = AttemptContext(task=Task(id="t", instruction=""), attempt=1, attempt_dir=tmp_path, benchmark=None)  # type: ignore[arg-type]
    with ScriptedModelServer(replies=["x"]) as srv:
        with pytest.raises(ConfigError, match="conversation"):
            asyncio.run(harness.run(ctx.task, None, model(srv, tmp_path, "agent"), ctx))  # type: ignore[arg-type]
    assert harness.converses is True and harness.requires_model is True
