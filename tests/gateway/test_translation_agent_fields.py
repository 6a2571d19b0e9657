"""Translation of the request fields the published agents send beyond the plain conversation (Claude Code: adaptive
thinking, ``output_config``, ``context_management``, system-role messages, deferred tools; Codex: ``client_metadata``,
namespace tools), with the official SDKs as the agent: mapped where the other API has the setting, left out with a
recorded warning where it cannot change the reply, refused (400 naming it) where leaving it out would."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.gateway.agents import AGENTS
from tests.gateway.conversation import reply
from tests.gateway.support import rig
from tests.gateway.test_translation_details import run

M2C = ("anthropic-messages", "openai-chat")
RESPONSES = [("openai-responses", "openai-chat"), ("openai-responses", "anthropic-messages")]


def _extra(**fields: Any):
    """An edit adding fields the SDK's typed parameters lack (sent as they are, like the agents send them)."""

    def edit(body, r):
        body.setdefault("extra_body", {}).update(fields)

    return edit


def _set(**fields: Any):
    return lambda body, r: body.update(fields)


@pytest.mark.parametrize(
    "fields,effort,warned",
    [
        ({"thinking": {"type": "adaptive", "display": "summarized"}, "output_config": {"effort": "high"}}, "high", 0),
        ({"thinking": {"type": "adaptive"}, "output_config": {"effort": "max"}}, "max", 0),
        ({"thinking": {"type": "adaptive"}}, None, 0),  # Claude decides: the endpoint's own default
        ({"thinking": {"type": "enabled", "budget_tokens": 20000}, "output_config": {"effort": "low"}}, "low", 0),
        ({"output_config": {"effort": "medium"}}, "medium", 0),
        ({"thinking": {"type": "disabled"}, "output_config": {"effort": "high"}}, None, 1),
    ],
    ids=["adaptive-high", "adaptive-max", "adaptive", "effort-over-budget", "effort-only", "disabled-with-effort"],
)
def test_adaptive_thinking_and_effort_become_reasoning_effort(fields, effort, warned, tmp_path):
    got, sent, lines = run(*M2C, tmp_path, _set(**fields))
    assert reply("anthropic-messages", got)["text"] == "done"
    assert sent[0].get("reasoning_effort") == effort
    assert len(lines[0]["warnings"]) == warned
    assert all("output_config.effort 'high' not sent: thinking is disabled" in w for w in lines[0]["warnings"])


def test_system_role_messages_are_system_messages_in_their_place(tmp_path: Path) -> None:
    def edit(body, r):
        body["messages"] += [
            {"role": "system", "content": [{"type": "text", "text": "# Environment", "cache_control": {"type": "x"}}]},
            {"role": "assistant", "content": "I see."},
            {"role": "system", "content": "shown once", "clear_at": "next_user_message"},
            {"role": "user", "content": "go on"},
            {"role": "system", "content": "think hard now", "output_config": {"effort": "xhigh"}},
        ]

    got, sent, _ = run(*M2C, tmp_path, edit)
    assert reply("anthropic-messages", got)["text"] == "done"
    roles = [(m["role"], m["content"] if m["role"] == "system" else "") for m in sent[0]["messages"]]
    assert roles == [
        ("system", [{"type": "text", "text": "You are terse. "}, {"type": "text", "text": "Use the tools."}]),
        ("user", ""),
        ("system", "# Environment"),
        ("assistant", ""),  # "shown once" is gone: a user message came after it
        ("user", ""),
        ("system", "think hard now"),
    ]
    assert sent[0]["reasoning_effort"] == "xhigh"  # the current turn's system message sets the effort


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_clear_thinking_has_nothing_to_clear_and_is_recorded(stream: bool, tmp_path: Path, caplog) -> None:
    caplog.set_level(logging.WARNING, logger="agentcompass")
    management = {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]}

    async def go():
        with ScriptedModelServer(replies=[{"text": "done", "usage": {"input_tokens": 4, "output_tokens": 1}}]) as srv:
            async with rig(srv, "openai-chat", tmp_path) as r:
                import anthropic

                client = anthropic.AsyncAnthropic(base_url=r.base_url, api_key=r.token, max_retries=0)
                body = {**AGENTS["anthropic-messages"](r.base_url, r.token).body, "context_management": management}
                try:
                    if stream:
                        async with client.beta.messages.stream(**body) as s:
                            message = await s.get_final_message()
                    else:
                        message = await client.beta.messages.create(**body)
                finally:
                    await client.close()
                return message, [q["body"] for q in srv.requests], r.calls()

    message, sent, lines = asyncio.run(go())
    assert message.content[0].text == "done"
    assert message.context_management is not None and message.context_management.applied_edits == []
    assert "context_management" not in sent[0]
    (warning,) = lines[0]["warnings"]
    assert warning.startswith("context_management edit 'clear_thinking_20251015' has nothing to clear")
    assert any("clear_thinking_20251015" in rec.getMessage() for rec in caplog.records)


@pytest.mark.parametrize(
    "edit,named",
    [
        (
            _extra(context_management={"edits": [{"type": "clear_tool_uses_20250919"}]}),
            "context_management.edits[0].type 'clear_tool_uses_20250919'",
        ),
        (_extra(context_management={"edits": [{"type": "compact_20260112"}]}), "'compact_20260112'"),
        (_extra(output_config={"task_budget": {"type": "tokens", "total": 5}}), "output_config.task_budget"),
        (_set(thinking={"type": "between_tools"}), "thinking type 'between_tools'"),
        (_set(thinking={"type": "adaptive"}, output_config={"effort": "extreme"}), "output_config.effort 'extreme'"),
        (lambda b, r: b["tools"][0].update(input_examples=[{}]), "tools['read_file'].input_examples"),
        (lambda b, r: b["messages"].append({"role": "system", "content": "x", "clear_at": "soon"}), "clear_at 'soon'"),
    ],
    ids=["clear_tool_uses", "compact", "task_budget", "between_tools", "bad-effort", "input_examples", "clear_at"],
)
def test_what_the_endpoint_would_have_to_do_is_refused_by_name(edit, named, tmp_path):
    got, sent, lines = run(*M2C, tmp_path, edit, stream=False)
    assert getattr(got, "status_code", None) == 400, got
    assert named in str(got) and sent == []
    assert named in lines[0]["error"]["message"]


def test_deferred_tools_reach_the_endpoint_once_a_tool_reference_loads_them(tmp_path: Path) -> None:
    deferred = {"name": "grep_logs", "description": "Search logs.", "input_schema": {"type": "object"}}

    def first(body, r):
        body["tools"] = [*body["tools"], {**deferred, "defer_loading": True}]
        body["tools"][0] = {**body["tools"][0], "strict": True, "cache_control": {"type": "ephemeral"}}

    def loaded(body, r):
        first(body, r)
        reference = {"type": "tool_reference", "tool_name": "grep_logs"}
        body["messages"] += [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read_file", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [reference]}]},
        ]

    _, sent, _ = run(*M2C, tmp_path / "a", first)
    assert [t["function"]["name"] for t in sent[0]["tools"]] == ["read_file", "grep"]
    assert sent[0]["tools"][0]["function"]["strict"] is True
    _, sent, _ = run(*M2C, tmp_path / "b", loaded)
    assert [t["function"]["name"] for t in sent[0]["tools"]] == ["read_file", "grep", "grep_logs"]
    assert sent[0]["messages"][-1] == {"role": "tool", "tool_call_id": "t1", "content": ""}


def test_output_format_becomes_a_json_schema_response_format(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    _, sent, _ = run(*M2C, tmp_path, _set(output_config={"format": {"type": "json_schema", "schema": schema}}))
    assert sent[0]["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "output", "schema": schema, "strict": True},
    }


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_omitted_thinking_display_returns_thinking_blocks_without_their_text(stream: bool, tmp_path: Path) -> None:
    chat = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "served-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "done", "reasoning_content": "secret steps"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
    }
    for display, shown in (("omitted", ""), ("summarized", "secret steps")):
        edit = _set(thinking={"type": "adaptive", "display": display})
        got, _, _ = run(*M2C, tmp_path / display, edit, stream=stream, replies=[{"body": chat}], streaming=False)
        thinking = [b for b in got["content"] if b["type"] == "thinking"]
        assert [b["thinking"] for b in thinking] == [shown], got
        assert reply("anthropic-messages", got)["text"] == "done"


@pytest.mark.parametrize("agent_protocol,upstream", RESPONSES, ids=["responses->chat", "responses->messages"])
def test_client_metadata_is_not_sent_and_the_warning_is_recorded(agent_protocol, upstream, tmp_path):
    edit = _extra(client_metadata={"thread_id": "t-1", "turn_id": "u-1"})
    got, sent, lines = run(agent_protocol, upstream, tmp_path, edit)
    assert reply(agent_protocol, got)["text"] == "done"
    assert "client_metadata" not in sent[0] and "t-1" not in json.dumps(sent[0])
    assert [w.split(":")[0] for w in lines[0]["warnings"]] == ["client_metadata not sent"]


NAMESPACE = {
    "type": "namespace",
    "name": "agents",
    "description": "Sub-agents.",
    "tools": [
        {"type": "function", "name": "spawn", "description": "Start one.", "parameters": {"type": "object"}},
        {"type": "custom", "name": "note", "description": "Free text."},
    ],
}


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("agent_protocol,upstream", RESPONSES, ids=["responses->chat", "responses->messages"])
def test_namespace_tools_are_flat_tools_and_their_calls_come_back_namespaced(
    agent_protocol, upstream, stream, tmp_path
):
    call = {"id": "call_9", "name": "agents__spawn", "arguments": {"task": "x"}}
    replies = [{"text": "", "tool_calls": [call], "usage": {"input_tokens": 5, "output_tokens": 2}}]

    def edit(body, r):
        body["tools"] = [*body["tools"], NAMESPACE]
        body["input"] += [
            {"type": "function_call", "call_id": "c0", "namespace": "agents", "name": "spawn", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c0", "output": "started"},
        ]

    got, sent, _ = run(agent_protocol, upstream, tmp_path, edit, stream=stream, replies=replies)
    tools = sent[0]["tools"]
    if upstream == "openai-chat":
        named = {t["function"]["name"]: t["function"].get("description") for t in tools}
        history = [c["function"]["name"] for m in sent[0]["messages"] for c in m.get("tool_calls") or []]
    else:
        named = {t["name"]: t.get("description") for t in tools}
        blocks = [b for m in sent[0]["messages"] if isinstance(m["content"], list) for b in m["content"]]
        history = [b["name"] for b in blocks if b["type"] == "tool_use"]
    assert named["agents__spawn"] == "[agents: Sub-agents.] Start one."
    assert "agents__note" in named and history == ["agents__spawn"]
    (item,) = [i for i in got["output"] if i["type"] == "function_call"]
    assert (item["namespace"], item["name"], json.loads(item["arguments"])) == ("agents", "spawn", {"task": "x"})


def test_a_namespace_member_named_like_another_tool_is_refused(tmp_path: Path) -> None:
    def edit(body, r):
        body["tools"] = [*body["tools"], {"type": "function", "name": "agents__spawn", "parameters": {}}, NAMESPACE]

    got, sent, _ = run("openai-responses", "anthropic-messages", tmp_path, edit, stream=False)
    assert getattr(got, "status_code", None) == 400 and "agents__spawn" in str(got) and sent == []
