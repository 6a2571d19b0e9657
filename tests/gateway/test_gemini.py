"""The Gemini API on the gateway, with the official ``google-genai`` SDK as the agent: ``generate_content`` and
``generate_content_stream``, function calling, a three-turn conversation with two tool calls. Through the gateway in
front of an endpoint of each protocol (OpenAI Chat and Responses and Anthropic Messages translated, a Gemini endpoint
passed on)
the SDK gets the same assembled text, calls, finish reasons and usage as talking to the scripted server directly;
the endpoint gets the conversation; the token works as ``x-goog-api-key`` and as ``key=`` and is written nowhere."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.gateway.support import rig

genai = pytest.importorskip("google.genai")
from google.genai import errors, types  # noqa: E402

SCRIPT = [
    {
        "text": "Let me read it.",
        "tool_calls": [{"id": "call_read_1", "name": "read_file", "arguments": {"path": "notes.txt"}}],
        "usage": {"input_tokens": 120, "output_tokens": 11, "cached_tokens": 20},
    },
    {
        "tool_calls": [{"id": "call_grep_2", "name": "grep", "arguments": {"pattern": "TODO", "path": "."}}],
        "usage": {"input_tokens": 160, "output_tokens": 9},
    },
    {"text": "notes.txt lists two TODOs.", "usage": {"input_tokens": 200, "output_tokens": 7}},
]
EXPECTED = [
    ("Let me read it.", [("call_read_1", "read_file", {"path": "notes.txt"})], 120, 11, 20),
    ("", [("call_grep_2", "grep", {"pattern": "TODO", "path": "."})], 160, 9, None),
    ("notes.txt lists two TODOs.", [], 200, 7, None),
]
TOOLS = [
    types.Tool(
        function_declarations=[
            types.FunctionDeclaration(
                name="read_file",
                description="Read a file.",
                parameters_json_schema={"type": "object", "properties": {"path": {"type": "string"}}},
            ),
            types.FunctionDeclaration(  # Gemini's own schema form (upper-case types)
                name="grep",
                parameters=types.Schema(
                    type="OBJECT",
                    properties={"pattern": types.Schema(type="STRING"), "path": types.Schema(type="STRING")},
                ),
            ),
        ]
    )
]
CONFIG = types.GenerateContentConfig(
    system_instruction="You are careful.",
    tools=TOOLS,
    automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
)


def _client(base_url: str, key: str) -> Any:
    return genai.Client(api_key=key, http_options=types.HttpOptions(base_url=base_url, api_version="v1beta"))


async def _turn(client: Any, contents: list[Any], stream: bool) -> tuple[tuple[Any, ...], list[Any]]:
    """One call: (text, calls, prompt / candidates / cached tokens, finish reason) and the reply's parts."""
    if stream:
        chunks = [c async for c in await client.aio.models.generate_content_stream(
            model="gemini-2.5-pro", contents=contents, config=CONFIG)]  # fmt: skip
        parts = [p for c in chunks for p in (c.candidates[0].content.parts or [])]
        last = chunks[-1]
    else:
        last = await client.aio.models.generate_content(model="gemini-2.5-pro", contents=contents, config=CONFIG)
        parts = list(last.candidates[0].content.parts or [])
    text = "".join(p.text for p in parts if p.text and not p.thought)
    calls = [(p.function_call.id, p.function_call.name, p.function_call.args) for p in parts if p.function_call]
    meta = last.usage_metadata
    facts = (text, calls, meta.prompt_token_count, meta.candidates_token_count, meta.cached_content_token_count)
    return (*facts, last.candidates[0].finish_reason), parts


async def _converse(client: Any, stream: bool) -> list[tuple[Any, ...]]:
    contents = [types.Content(role="user", parts=[types.Part(text="Read notes.txt and list its TODOs.")])]
    out = []
    for _ in range(3):
        facts, parts = await _turn(client, contents, stream)
        out.append(facts)
        contents.append(types.Content(role="model", parts=parts))
        results = [
            types.Part(function_response=types.FunctionResponse(id=i, name=n, response={"output": f"{n} output"}))
            for i, n, _ in facts[1]
        ]
        if results:
            contents.append(types.Content(role="user", parts=results))
    return out


async def _direct(stream: bool) -> list[tuple[Any, ...]]:
    with ScriptedModelServer(replies=SCRIPT) as srv:
        return await _converse(_client(srv.base_url.removesuffix("/v1"), "direct-key-0001"), stream)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("upstream", ["openai-chat", "anthropic-messages", "openai-responses", "google-genai"])
def test_the_sdk_through_the_gateway_gets_what_it_gets_directly(upstream: str, stream: bool, tmp_path: Path) -> None:
    asyncio.run(_agreement(upstream, stream, tmp_path))


async def _agreement(upstream: str, stream: bool, tmp_path: Path) -> None:
    baseline = await _direct(stream)
    assert [f[:5] for f in baseline] == EXPECTED  # the scripted server speaks the Gemini API as scripted
    with ScriptedModelServer(replies=SCRIPT) as srv:
        async with rig(srv, upstream, tmp_path) as r:
            got = await _converse(_client(r.base_url, r.token), stream)
            calls, usage = r.calls(), r.model.usage
    assert got == baseline
    assert {q["protocol"] for q in srv.requests} == {upstream}
    last = json.dumps(srv.requests[-1]["body"])
    for seen in ("You are careful.", "Read notes.txt", "read_file output", "grep output", "call_grep_2", "TODO"):
        assert seen in last, (seen, last[:400])
    assert [c["status"] for c in calls] == ["ok"] * 3 and {c["upstream_protocol"] for c in calls} == {upstream}
    assert (usage.input_tokens, usage.output_tokens, usage.n_calls) == (480, 27, 3)
    text = (tmp_path / "model_calls.jsonl").read_text()
    assert r.token not in text and "sk-real-key-123456789" not in text


def test_the_token_as_a_query_parameter_and_what_cannot_be_mapped(tmp_path: Path) -> None:
    asyncio.run(_query_and_refusals(tmp_path))


async def _query_and_refusals(tmp_path: Path) -> None:
    import aiohttp

    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    with ScriptedModelServer(replies=["hello"] * 3) as srv:
        async with rig(srv, "openai-chat", tmp_path) as r, aiohttp.ClientSession() as http:
            url = f"{r.base_url}/v1beta/models/gemini-2.5-pro:generateContent"
            async with http.post(url, params={"key": r.token}, json=body) as resp:
                ok = await resp.json()
            async with http.post(url, params={"key": "wrong"}, json=body) as resp:
                denied = (resp.status, await resp.json())
            bad = {**body, "generationConfig": {"candidateCount": 2}}
            async with http.post(url, headers={"x-goog-api-key": r.token}, json=bad) as resp:
                refused = (resp.status, await resp.json())
            count = url.replace(":generateContent", ":countTokens")
            async with http.post(count, headers={"x-goog-api-key": r.token}, json=body) as resp:
                counted = (resp.status, await resp.json())
    assert ok["candidates"][0]["content"]["parts"] == [{"text": "hello"}]
    assert denied[0] == 401 and denied[1]["error"]["status"] == "UNAUTHENTICATED"
    assert refused[0] == 400 and "candidateCount=2" in refused[1]["error"]["message"]
    assert counted[0] == 400 and "no translation" in counted[1]["error"]["message"]
    assert len(srv.requests) == 1  # nothing refused went upstream
    assert "key=" not in json.dumps(srv.requests) and r.token not in (tmp_path / "model_calls.jsonl").read_text()


def test_count_tokens_is_passed_on_to_a_gemini_endpoint(tmp_path: Path) -> None:
    async def go() -> Any:
        with ScriptedModelServer(replies=["x"]) as srv:
            async with rig(srv, "google-genai", tmp_path) as r:
                client = _client(r.base_url, r.token)
                return await client.aio.models.count_tokens(model="gemini-2.5-pro", contents="one two three")

    assert asyncio.run(go()).total_tokens == 3


def test_an_sdk_error_reaches_the_agent_in_the_gemini_shape(tmp_path: Path) -> None:
    async def go() -> Any:
        script = [{"status": 400, "error": "bad request body"}]
        with ScriptedModelServer(replies=script) as srv:
            async with rig(srv, "openai-chat", tmp_path, max_retries=0) as r:
                await _client(r.base_url, r.token).aio.models.generate_content(model="m", contents="hi")

    with pytest.raises(errors.ClientError) as err:
        asyncio.run(go())
    assert err.value.code == 400 and "bad request body" in str(err.value.message)
