"""Protocol translation beyond the plain conversation: hosted tools dropped with a warning, what has no counterpart
refused with an API error naming it, reasoning settings and thinking, stop reasons, ``gateway.model_map``, an
endpoint that does not stream, and a translated stream cut by the endpoint."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.gateway.agents import AGENTS
from tests.gateway.conversation import reply
from tests.gateway.support import rig

DIRECTIONS = [
    ("anthropic-messages", "openai-chat"),
    ("openai-responses", "openai-chat"),
    ("openai-chat", "anthropic-messages"),
    ("openai-responses", "anthropic-messages"),
]
IDS = [f"{a}->{u}" for a, u in DIRECTIONS]
ANSWER = {"text": "done", "usage": {"input_tokens": 40, "output_tokens": 2}}


async def _one(agent_protocol: str, upstream: str, tmp: Path, edit=None, stream: bool = True, **server: Any):
    """One call of the agent (its body edited by ``edit``) through the gateway; (reply or error, requests, lines)."""
    replies = server.pop("replies", [ANSWER])
    with ScriptedModelServer(replies=replies, **server) as srv:
        async with rig(srv, upstream, tmp) as r:
            if server.get("model_map") is not None:
                pass
            agent = AGENTS[agent_protocol](r.base_url, r.token)
            if edit is not None:
                edit(agent.body, r)
            try:
                got: Any = await agent.call(stream)
            except Exception as exc:  # the SDK's API error
                got = exc
            finally:
                await agent.aclose()
            return got, [q["body"] for q in srv.requests], r.calls()


def run(*args: Any, **kw: Any):
    return asyncio.run(_one(*args, **kw))


def test_hosted_tools_are_dropped_with_a_warning_in_the_record_and_the_log(tmp_path: Path, caplog) -> None:
    def edit(body, r):
        body["tools"].append({"type": "web_search"})

    caplog.set_level(logging.WARNING, logger="agentcompass")
    got, sent, lines = run("openai-responses", "openai-chat", tmp_path, edit)
    assert reply("openai-responses", got)["text"] == "done"
    assert [t["function"]["name"] for t in sent[0]["tools"]] == ["read_file", "grep"]  # web_search not sent
    (line,) = lines
    assert line["warnings"] == ["hosted tool 'web_search' dropped: the endpoint cannot run it (gateway translation)"]
    assert any("hosted tool 'web_search' dropped" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    "agent_protocol,upstream,edit,named",
    [
        (
            "anthropic-messages",
            "openai-chat",
            lambda b, r: b["messages"][0]["content"].append(
                {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}}
            ),
            "content block type 'document'",
        ),
        (
            "anthropic-messages",
            "openai-chat",
            lambda b, r: b.update(service_tier="priority"),
            "unsupported field(s) service_tier",
        ),
        ("openai-chat", "anthropic-messages", lambda b, r: b.update(n=2), "n=2"),
        ("openai-chat", "anthropic-messages", lambda b, r: b.update(logprobs=True), "unsupported field(s) logprobs"),
        (
            "openai-responses",
            "openai-chat",
            lambda b, r: b.update(previous_response_id="resp_1"),
            "unsupported field(s) previous_response_id",
        ),
        (
            "openai-responses",
            "anthropic-messages",
            lambda b, r: b["tools"].append({"type": "local_shell"}),
            "tool type 'local_shell'",
        ),
        ("openai-responses", "anthropic-messages", lambda b, r: b.update(text={"verbosity": "low"}), "text.verbosity"),
    ],
    ids=["document", "service_tier", "n", "logprobs", "previous_response_id", "local_shell", "verbosity"],
)
def test_what_has_no_counterpart_is_an_api_error_naming_it(agent_protocol, upstream, edit, named, tmp_path):
    got, sent, lines = run(agent_protocol, upstream, tmp_path, edit, stream=False)
    assert getattr(got, "status_code", None) == 400, got
    assert named in str(got) and upstream in str(got)
    assert sent == []  # nothing reached the endpoint
    assert lines[0]["status"] == "error" and named in lines[0]["error"]["message"]


@pytest.mark.parametrize(
    "agent_protocol,upstream,setting,expected",
    [
        (
            "anthropic-messages",
            "openai-chat",
            {"thinking": {"type": "enabled", "budget_tokens": 4000}},
            {"reasoning_effort": "medium"},
        ),
        (
            "openai-responses",
            "openai-chat",
            {"reasoning": {"effort": "high", "summary": "auto"}},
            {"reasoning_effort": "high"},
        ),
        (
            "openai-chat",
            "anthropic-messages",
            {"reasoning_effort": "low"},
            {"thinking": {"type": "enabled", "budget_tokens": 2048}},
        ),
        (
            "openai-responses",
            "anthropic-messages",
            {"reasoning": {"effort": "medium"}},
            {"thinking": {"type": "enabled", "budget_tokens": 8192}},
        ),
    ],
    ids=IDS,
)
def test_reasoning_settings_are_mapped(agent_protocol, upstream, setting, expected, tmp_path):
    got, sent, _ = run(agent_protocol, upstream, tmp_path, lambda b, r: b.update(setting))
    assert reply(agent_protocol, got)["text"] == "done"
    assert {k: sent[0].get(k) for k in expected} == expected
    if upstream == "anthropic-messages":
        assert sent[0]["max_tokens"] > expected["thinking"]["budget_tokens"]


THINKING_BODY = {
    "id": "msg_think_1",
    "type": "message",
    "role": "assistant",
    "model": "served-model",
    "content": [
        {"type": "thinking", "thinking": "The file is small; read it.", "signature": "sig-abc-123"},
        {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "notes.txt"}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 50, "output_tokens": 20, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0},
}


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_anthropic_thinking_rides_a_reasoning_item_and_comes_back(stream: bool, tmp_path: Path) -> None:
    """Codex on an Anthropic endpoint with thinking and tools: the thinking block reaches the agent as a reasoning
    item (its summary the thinking, the signature sealed in encrypted_content) and is sent back as the same block,
    as Anthropic requires when a tool result follows."""

    async def go():
        with ScriptedModelServer(replies=[{"body": THINKING_BODY}, ANSWER]) as srv:
            async with rig(srv, "anthropic-messages", tmp_path) as r:
                agent = AGENTS["openai-responses"](r.base_url, r.token)
                agent.body.update(
                    reasoning={"effort": "low", "summary": "auto"}, include=["reasoning.encrypted_content"]
                )
                first = await agent.call(stream)
                items = [i for i in first["output"] if i["type"] == "reasoning"]
                agent.body["input"].append({k: v for k, v in items[0].items() if k != "status"})
                agent.append(first)
                await agent.call(stream)
                await agent.aclose()
                return items, srv.requests[1]["body"]

    items, second = asyncio.run(go())
    (item,) = items
    assert item["summary"] == [{"type": "summary_text", "text": "The file is small; read it."}]
    assert item["encrypted_content"].startswith("acgw1:")
    assistant = second["messages"][1]
    assert assistant["role"] == "assistant"
    assert assistant["content"][0] == {
        "type": "thinking",
        "thinking": "The file is small; read it.",
        "signature": "sig-abc-123",
    }
    assert assistant["content"][1]["type"] == "tool_use" and assistant["content"][1]["id"] == "toolu_1"
    assert second["messages"][2]["content"][0]["tool_use_id"] == "toolu_1"


@pytest.mark.parametrize("agent_protocol,upstream", DIRECTIONS, ids=IDS)
def test_stop_at_max_tokens_is_each_apis_own(agent_protocol, upstream, tmp_path):
    replies = [{"text": "cut sh", "finish_reason": "length", "usage": {"input_tokens": 5, "output_tokens": 3}}]
    got, _, _ = run(agent_protocol, upstream, tmp_path, replies=replies)
    assert reply(agent_protocol, got) == {"text": "cut sh", "calls": [], "finish": "length", "input": 5, "output": 3}


@pytest.mark.parametrize("agent_protocol,upstream", DIRECTIONS, ids=IDS)
def test_an_endpoint_that_does_not_stream_serves_a_translated_stream(agent_protocol, upstream, tmp_path):
    replies = [
        {
            "text": "hello there",
            "tool_calls": [{"id": "c1", "name": "grep", "arguments": {"pattern": "x"}}],
            "usage": {"input_tokens": 9, "output_tokens": 4},
        }
    ]
    got, sent, lines = run(agent_protocol, upstream, tmp_path, replies=replies, streaming=False)
    assert reply(agent_protocol, got) == {
        "text": "hello there",
        "calls": [("c1", "grep", {"pattern": "x"})],
        "finish": "tool_calls",
        "input": 9,
        "output": 4,
    }
    assert sent[0]["stream"] is True and lines[0]["stream"] == {"agent": True, "upstream": False}


def test_model_map_names_the_model_sent_for_the_name_the_agent_asks_for(tmp_path: Path) -> None:
    def edit(body, r):
        r.session.model_map = {"claude-the-agent-asks-for": "small-model"}

    got, sent, lines = run("anthropic-messages", "openai-chat", tmp_path, edit)
    assert sent[0]["model"] == "small-model" and lines[0]["model"] == "small-model"
    assert got["model"] == "small-model"
    got, sent, _ = run("openai-chat", "anthropic-messages", tmp_path / "other", edit)
    assert sent[0]["model"] == "served-model"  # a name not in the map: the request's model id


@pytest.mark.parametrize("agent_protocol,upstream", DIRECTIONS, ids=IDS)
def test_a_translated_stream_cut_by_the_endpoint_ends_with_the_agents_error_event(agent_protocol, upstream, tmp_path):
    replies = [{"text": "a b c d e f", "drop_after_events": 3}]
    got, _, lines = run(agent_protocol, upstream, tmp_path, replies=replies)
    assert isinstance(got, Exception), got  # the SDK saw an error event (or a stream that stopped short)
    assert lines[0]["status"] == "error"
