"""Function tools over real HTTP on every protocol: definitions, tool-call replies, tool results in the history,
usage and cost (the official SDKs against the scripted server on 127.0.0.1)."""

from __future__ import annotations

import json
from asyncio import run

import pytest

from agentcompass.errors import ConfigError
from agentcompass.interfaces import ToolCall
from agentcompass.testing.scripted_server import ScriptedModelServer

BASH = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a command",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    },
}
PRICES = {"input_per_mtok": 1000.0, "output_per_mtok": 2000.0}
USAGE = {"input_tokens": 100, "output_tokens": 10}
REPLIES = [
    {
        "text": "Looking first.",
        "usage": USAGE,
        "tool_calls": [
            {"id": "call_a", "name": "bash", "arguments": {"command": "ls"}},
            {"id": "call_b", "name": "bash", "arguments": {"command": "pwd"}},
        ],
    },
    {"tool_calls": [{"id": "call_c", "name": "bash", "arguments": '{"command": "cat x"}'}], "usage": USAGE},
    {"text": "done", "usage": USAGE},
]
PROTOCOLS = ["openai-chat", "openai-responses", "anthropic-messages"]


def _conversation(model):
    """Three calls; each reply's calls are answered with tool results before the next call."""

    async def go():
        history = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "inspect"}]
        replies = []
        for _ in range(3):
            reply = await model.complete(history, tools=[BASH], parallel_tool_calls=False)
            replies.append(reply)
            history.append(
                {
                    "role": "assistant",
                    "content": reply.text or None,
                    "tool_calls": [c.to_message() for c in reply.tool_calls] or None,
                }
            )
            for call in reply.tool_calls:
                cmd = json.loads(call.arguments)["command"]
                history.append({"role": "tool", "tool_call_id": call.id, "content": f"output of {cmd}"})
            if reply.tool_calls:
                history.append({"role": "user", "content": "go on"})
        await model.aclose()
        return replies

    return run(go())


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_tool_calls_round_trip(make_model, protocol: str) -> None:
    with ScriptedModelServer(replies=REPLIES) as srv:
        model = make_model(
            srv.base_url,
            id="claude-t" if protocol.startswith("anthropic") else "test-model",
            api_protocol=protocol,
            prices=PRICES,
        )
        replies = _conversation(model)
    first, second, third = replies
    assert first.tool_calls == [
        ToolCall("call_a", "bash", '{"command": "ls"}'),
        ToolCall("call_b", "bash", '{"command": "pwd"}'),
    ]
    assert (first.text, first.finish_reason) == ("Looking first.", "tool_calls")
    assert (second.text, second.finish_reason, [c.id for c in second.tool_calls]) == ("", "tool_calls", ["call_c"])
    assert json.loads(second.tool_calls[0].arguments) == {"command": "cat x"}
    assert (third.text, third.finish_reason, third.tool_calls) == ("done", "stop", [])
    # usage and cost: 100 in at $1000/M + 10 out at $2000/M = $0.12 per call
    assert [r.usage.cost_usd for r in replies] == pytest.approx([0.12] * 3)
    assert (model.usage.n_calls, model.usage.input_tokens, model.usage.output_tokens) == (3, 300, 30)
    assert model.usage.cost_usd == pytest.approx(0.36)
    bodies = [r["body"] for r in srv.requests]
    _check_wire(protocol, bodies)


def _check_wire(protocol: str, bodies: list[dict]) -> None:
    last = bodies[2]
    if protocol == "openai-chat":
        assert all(b["tools"] == [BASH] and b["parallel_tool_calls"] is False for b in bodies)
        msgs = last["messages"]
        assert msgs[2] == {
            "role": "assistant",
            "content": "Looking first.",
            "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}},
                {"id": "call_b", "type": "function", "function": {"name": "bash", "arguments": '{"command": "pwd"}'}},
            ],
        }
        assert msgs[3] == {"role": "tool", "tool_call_id": "call_a", "content": "output of ls"}
        assert msgs[6]["role"] == "assistant" and "content" not in msgs[6]  # None is not sent
    elif protocol == "openai-responses":
        assert all(b["tools"] == [{"type": "function", **BASH["function"]}] for b in bodies)
        items = last["input"]
        assert last["instructions"] == "Be brief." and items[0] == {"role": "user", "content": "inspect"}
        assert items[1] == {"role": "assistant", "content": "Looking first."}
        assert items[2] == {
            "type": "function_call",
            "call_id": "call_a",
            "name": "bash",
            "arguments": '{"command": "ls"}',
        }
        assert items[4] == {"type": "function_call_output", "call_id": "call_a", "output": "output of ls"}
        assert items[7]["type"] == "function_call" and items[7]["call_id"] == "call_c"
    else:
        fn = BASH["function"]
        assert all(
            b["tools"] == [{"name": "bash", "description": fn["description"], "input_schema": fn["parameters"]}]
            for b in bodies
        )
        assert all(b["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True} for b in bodies)
        msgs = last["messages"]
        assert last["system"] == "Be brief." and msgs[0] == {"role": "user", "content": "inspect"}
        assert msgs[1] == {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Looking first."},
                {"type": "tool_use", "id": "call_a", "name": "bash", "input": {"command": "ls"}},
                {"type": "tool_use", "id": "call_b", "name": "bash", "input": {"command": "pwd"}},
            ],
        }
        assert msgs[2] == {
            "role": "user",
            "content": [  # both results and the next user turn: one message
                {"type": "tool_result", "tool_use_id": "call_a", "content": "output of ls"},
                {"type": "tool_result", "tool_use_id": "call_b", "content": "output of pwd"},
                {"type": "text", "text": "go on"},
            ],
        }
        assert [m["role"] for m in msgs] == ["user", "assistant", "user", "assistant", "user"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_tools_from_params_and_named_tool_choice(make_model, protocol: str) -> None:
    with ScriptedModelServer(replies=["ok"]) as srv:
        model = make_model(
            srv.base_url,
            api_protocol=protocol,
            params={"tools": [BASH], "tool_choice": {"type": "function", "function": {"name": "bash"}}},
        )
        run(model.complete([{"role": "user", "content": "hi"}]))
        run(model.aclose())
    body = srv.requests[0]["body"]
    expected = {
        "openai-chat": {"type": "function", "function": {"name": "bash"}},
        "openai-responses": {"type": "function", "name": "bash"},
        "anthropic-messages": {"type": "tool", "name": "bash"},
    }[protocol]
    assert body["tool_choice"] == expected and len(body["tools"]) == 1


def test_a_tool_that_is_not_a_function_is_a_config_error(make_model) -> None:
    with ScriptedModelServer(replies=["ok"]) as srv:
        model = make_model(srv.base_url, api_protocol="anthropic-messages")
        with pytest.raises(ConfigError, match="is not a function tool"):
            run(model.complete([{"role": "user", "content": "hi"}], tools=[{"type": "web_search"}]))
    assert srv.requests == []
