"""Protocol translation agreement: for each direction, an agent on its official SDK holds a three-turn
conversation with two tool calls through the gateway in front of an endpoint that speaks another protocol
(streamed and not); the endpoint gets the agent's conversation (system prompt, multi-part user content with an
image, tools, tool calls and results) with identical content, and the agent gets the endpoint's replies (text, tool
calls, stop reason, usage) with identical content, as the same agent does talking to an endpoint of its own API."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.gateway.agents import AGENTS
from tests.gateway.conversation import conversation, reply, tools
from tests.gateway.support import rig

DIRECTIONS = [
    ("anthropic-messages", "openai-chat"),
    ("openai-responses", "openai-chat"),
    ("openai-chat", "anthropic-messages"),
    ("openai-responses", "anthropic-messages"),
]
SCRIPT = [
    {
        "text": "Let me read it.",
        "tool_calls": [{"id": "call_read_1", "name": "read_file", "arguments": {"path": "notes.txt"}}],
        "usage": {"input_tokens": 120, "output_tokens": 11, "cached_tokens": 20},
    },
    {
        "tool_calls": [{"id": "call_grep_2", "name": "grep", "arguments": {"pattern": "TODO", "path": "."}}],
        "usage": {"input_tokens": 160, "output_tokens": 9, "cached_tokens": 100},
    },
    {"text": "notes.txt lists two TODOs.", "usage": {"input_tokens": 200, "output_tokens": 7}},
]
EXPECTED = [
    {
        "text": "Let me read it.",
        "calls": [("call_read_1", "read_file", {"path": "notes.txt"})],
        "finish": "tool_calls",
        "input": 120,
        "output": 11,
    },
    {
        "text": "",
        "calls": [("call_grep_2", "grep", {"pattern": "TODO", "path": "."})],
        "finish": "tool_calls",
        "input": 160,
        "output": 9,
    },
    {"text": "notes.txt lists two TODOs.", "calls": [], "finish": "stop", "input": 200, "output": 7},
]


async def _converse(agent, server: ScriptedModelServer, stream: bool) -> list[dict]:
    """Three turns; per turn what the agent sent, what it got, and what the endpoint received."""
    turns = []
    for _ in range(3):
        sent = json.loads(json.dumps(agent.body))
        got = await agent.call(stream)
        turns.append({"sent": sent, "got": got, "received": server.requests[-1]["body"]})
        agent.append(got)
    return turns


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("agent_protocol,upstream", DIRECTIONS, ids=[f"{a}->{u}" for a, u in DIRECTIONS])
def test_a_three_turn_tool_conversation_round_trips(agent_protocol, upstream, stream, tmp_path: Path) -> None:
    asyncio.run(_round_trip(agent_protocol, upstream, stream, tmp_path))


async def _round_trip(agent_protocol: str, upstream: str, stream: bool, tmp_path: Path) -> None:
    with ScriptedModelServer(replies=SCRIPT) as direct_srv:
        direct = AGENTS[agent_protocol](direct_srv.base_url.removesuffix("/v1"), "sk-direct-key-000")
        baseline = await _converse(direct, direct_srv, stream)
        await direct.aclose()
    with ScriptedModelServer(replies=SCRIPT) as srv:
        async with rig(srv, upstream, tmp_path) as r:
            agent = AGENTS[agent_protocol](r.base_url, r.token)
            turns = await _converse(agent, srv, stream)
            await agent.aclose()
    for n, (turn, base) in enumerate(zip(turns, baseline, strict=True)):
        assert turn["received"]["model"] == "served-model"
        assert conversation(upstream, turn["received"]) == conversation(agent_protocol, turn["sent"]), n
        assert tools(upstream, turn["received"]) == tools(agent_protocol, turn["sent"])
        assert reply(agent_protocol, turn["got"]) == EXPECTED[n] == reply(agent_protocol, base["got"])
        assert bool(turn["received"].get("stream")) == stream
    assert [len(conversation(agent_protocol, t["sent"])) for t in turns] == [2, 4, 6]
    lines = r.calls()
    assert [(x["agent_protocol"], x["upstream_protocol"], x["status"]) for x in lines] == [
        (agent_protocol, upstream, "ok")
    ] * 3
    assert [x["usage"]["input"] for x in lines] == [120, 160, 200]  # counted once, from the endpoint's reply
    assert all(
        x["upstream_request"]["model"] == "served-model" and x["request"]["protocol"] == agent_protocol for x in lines
    )
    assert r.model.usage.input_tokens == 480 and r.model.usage.output_tokens == 27
