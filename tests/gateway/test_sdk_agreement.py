"""The official SDKs get the same answer through the gateway as directly from the endpoint (same protocol)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.gateway.support import rig

REPLY = {
    "text": "I will look at the files first.",
    "tool_calls": [{"name": "bash", "arguments": {"cmd": "ls -la /app"}}],
    "usage": {"input_tokens": 31, "output_tokens": 12, "cached_tokens": 5},
}
TOOLS_CHAT = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]
TOOLS_RESP = [{"type": "function", "name": "bash", "parameters": {"type": "object"}}]
TOOLS_MSG = [{"name": "bash", "input_schema": {"type": "object"}}]
MSGS = [{"role": "user", "content": "list the files"}]


def _openai(base: str, key: str) -> Any:
    from openai import AsyncOpenAI

    return AsyncOpenAI(base_url=base, api_key=key, max_retries=0)


def _anthropic(base: str, key: str) -> Any:
    from anthropic import AsyncAnthropic

    return AsyncAnthropic(base_url=base, api_key=key, max_retries=0)


async def chat_stream(base: str, key: str) -> tuple[Any, ...]:
    stream = await _openai(base, key).chat.completions.create(
        model="any", messages=MSGS, tools=TOOLS_CHAT, stream=True, stream_options={"include_usage": True}
    )
    text, calls, usage = "", {}, None
    async for chunk in stream:
        if chunk.usage:
            usage = (chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
        for choice in chunk.choices:
            text += choice.delta.content or ""
            for call in choice.delta.tool_calls or []:
                held = calls.setdefault(call.index, ["", ""])
                held[0] += call.function.name or ""
                held[1] += call.function.arguments or ""
    return text, sorted(calls.values()), usage


async def chat_create(base: str, key: str) -> tuple[Any, ...]:
    r = await _openai(base, key).chat.completions.create(model="any", messages=MSGS, tools=TOOLS_CHAT)
    m = r.choices[0].message
    calls = [[c.function.name, c.function.arguments] for c in m.tool_calls]
    return m.content, calls, (r.usage.prompt_tokens, r.usage.completion_tokens), r.choices[0].finish_reason


async def responses_stream(base: str, key: str) -> tuple[Any, ...]:
    async with _openai(base, key).responses.stream(model="any", input="list the files", tools=TOOLS_RESP) as s:
        async for _ in s:
            pass
        r = await s.get_final_response()
    calls = [[o.name, o.arguments] for o in r.output if o.type == "function_call"]
    return r.output_text, calls, (r.usage.input_tokens, r.usage.output_tokens)


async def responses_create(base: str, key: str) -> tuple[Any, ...]:
    r = await _openai(base, key).responses.create(model="any", input="list the files", tools=TOOLS_RESP)
    calls = [[o.name, o.arguments] for o in r.output if o.type == "function_call"]
    return r.output_text, calls, (r.usage.input_tokens, r.usage.output_tokens)


async def responses_create_stream(base: str, key: str) -> tuple[Any, ...]:
    stream = await _openai(base, key).responses.create(model="any", input="list the files", stream=True)
    final = None
    async for event in stream:
        if event.type == "response.completed":
            final = event.response
    return final.output_text, (final.usage.input_tokens, final.usage.output_tokens)


async def messages_stream(base: str, key: str) -> tuple[Any, ...]:
    client = _anthropic(base.removesuffix("/v1"), key)
    async with client.messages.stream(model="any", max_tokens=100, messages=MSGS, tools=TOOLS_MSG) as s:
        m = await s.get_final_message()
    return _message_facts(m)


async def messages_create(base: str, key: str) -> tuple[Any, ...]:
    client = _anthropic(base.removesuffix("/v1"), key)
    m = await client.messages.create(model="any", max_tokens=100, messages=MSGS, tools=TOOLS_MSG)
    return _message_facts(m)


def _message_facts(m: Any) -> tuple[Any, ...]:
    text = "".join(b.text for b in m.content if b.type == "text")
    calls = [[b.name, json.dumps(b.input)] for b in m.content if b.type == "tool_use"]
    u = m.usage
    return text, calls, (u.input_tokens, u.output_tokens, u.cache_read_input_tokens), m.stop_reason


CASES = [
    ("openai-chat", chat_stream, True),
    ("openai-chat", chat_create, False),
    ("openai-responses", responses_stream, True),
    ("openai-responses", responses_create, False),
    ("openai-responses", responses_create_stream, True),
    ("anthropic-messages", messages_stream, True),
    ("anthropic-messages", messages_create, False),
]


@pytest.mark.parametrize("streaming_endpoint", [True, False], ids=["endpoint-streams", "endpoint-does-not-stream"])
@pytest.mark.parametrize(("protocol", "client", "streamed"), CASES, ids=[c[1].__name__ for c in CASES])
def test_same_answer_through_the_gateway(
    tmp_path: Path, protocol: str, client: Any, streamed: bool, streaming_endpoint: bool
) -> None:
    async def main() -> None:
        with ScriptedModelServer([REPLY, REPLY]) as server:
            direct = await client(server.base_url, "k")
            server.streaming = streaming_endpoint
            async with rig(server, protocol, tmp_path) as r:
                via = await client(r.base_url + "/v1", r.token)
                assert via == direct
                assert r.model.usage.n_calls == 1
                assert r.model.usage.input_tokens == 31 and r.model.usage.output_tokens == 12
                assert r.model.usage.cached_tokens == 5
                (line,) = r.calls()
                assert line["source"] == "gateway" and line["status"] == "ok"
                assert line["stream"] == {"agent": streamed, "upstream": streamed and streaming_endpoint}
                assert line["request"]["body"]["model"] == "served-model"
                assert line["response"]["tool_calls"][0]["name"] == "bash"
                assert server.requests[-1]["body"]["model"] == "served-model"
                assert "sk-real-key" not in (tmp_path / "model_calls.jsonl").read_text()
                assert r.token not in (tmp_path / "model_calls.jsonl").read_text()

    asyncio.run(main())
