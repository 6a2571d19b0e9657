"""The request on the wire is the one the SDK method makes from typed arguments.

The model layer hands messages and tools to the SDK through ``extra_body`` (``_params.untyped``: it skips the
SDK's per-call type-driven transform). Here each request is also made the plain way, every value a typed
argument of the SDK method, against the same scripted server; bodies and headers must be equal.
"""

from __future__ import annotations

from asyncio import run
from typing import Any

import pytest

from agentcompass.models import _params, _tools
from agentcompass.models.protocols.anthropic_messages import DEFAULT_MAX_TOKENS
from agentcompass.testing.scripted_server import ScriptedModelServer

BASH = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a command",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    },
}
CALL = {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
HISTORY = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "list the files"},
    {"role": "assistant", "content": "Looking.", "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "call_1", "content": "a.txt\nb.txt"},
    {"role": "user", "content": "and now?"},
]
CASES: list[tuple[list[dict[str, Any]], list[dict[str, Any]] | None, dict[str, Any]]] = [
    (HISTORY[:2], None, {"temperature": 0.2, "max_tokens": 64, "stop": ["END"]}),
    (HISTORY, [BASH], {"tool_choice": "required", "parallel_tool_calls": False, "seed": 3}),
    (
        HISTORY[:2],
        [BASH],
        {
            "top_k": 5,
            "repetition_penalty": 1.1,
            "extra_body": {"tools": [], "x": 1},
            "extra_headers": {"X-Trace": "t-1"},
        },
    ),
    (
        [
            {
                "role": "system",
                "content": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
            },
            {"role": "user", "content": "hi"},
        ],
        None,
        {"max_tokens": 9},
    ),
]
PROTOCOLS = ["openai-chat", "openai-responses", "anthropic-messages"]


async def _typed(
    client: Any,
    protocol: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    params: dict[str, Any],
) -> None:
    """The request made with every value a typed argument of the SDK method."""
    if protocol == "openai-chat":
        create = client.chat.completions.create
        kwargs = _params.for_protocol(protocol, params, _params.sdk_keys(protocol, create))
        await create(
            model="m", messages=_tools.chat_messages(messages), **kwargs, **({"tools": tools} if tools else {})
        )
    elif protocol == "openai-responses":
        create = client.responses.create
        kwargs = _params.for_protocol(protocol, params, _params.sdk_keys(protocol, create))
        system, items = _tools.responses_input(messages)
        if "tool_choice" in kwargs:
            kwargs["tool_choice"] = _tools.responses_tool_choice(kwargs["tool_choice"])
        if tools:
            kwargs["tools"] = _tools.responses_tools(tools)
        await create(model="m", input=items, **({"instructions": system} if system else {}), **kwargs)
    else:
        create = client.messages.create
        rest = dict(params)
        choice = _tools.anthropic_tool_choice(rest.pop("tool_choice", None), rest.pop("parallel_tool_calls", None))
        kwargs = _params.for_protocol(protocol, rest, _params.sdk_keys(protocol, create))
        kwargs.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
        system, msgs = _tools.anthropic_messages(messages)
        if system:
            kwargs["system"] = system
        if tools:
            kwargs["tools"] = _tools.anthropic_tools(tools)
            if choice is not None:
                kwargs["tool_choice"] = choice
        await create(model="m", messages=msgs, **kwargs)


def _client(protocol: str, base_url: str, key: str) -> Any:
    if protocol.startswith("anthropic"):
        from agentcompass.models.protocols.anthropic_messages import make_client

        return make_client(base_url.removesuffix("/v1"), key, 600.0)
    from agentcompass.models.protocols.openai_chat import make_client

    return make_client(base_url, key, 600.0)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_wire_request_equals_typed_sdk_call(make_model, api_key: str, protocol: str) -> None:
    with ScriptedModelServer(default_reply="ok") as srv:
        model = make_model(srv.base_url, id="m", api_protocol=protocol)

        async def go() -> None:
            client = _client(protocol, srv.base_url, api_key)
            for messages, tools, params in CASES:
                await model.complete(messages, tools=tools, **params)
                await _typed(client, protocol, messages, tools, params)
            await client.close()
            await model.aclose()

        run(go())
    assert len(srv.requests) == 2 * len(CASES)
    for i in range(len(CASES)):
        ours, typed = srv.requests[2 * i], srv.requests[2 * i + 1]
        assert ours["path"] == typed["path"]
        assert ours["body"] == typed["body"], f"case {i}"
        assert ours["headers"] == typed["headers"], f"case {i}"
    assert srv.requests[4]["body"]["x"] == 1 and srv.requests[4]["headers"]["x-trace"] == "t-1"
