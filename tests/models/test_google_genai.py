"""The ``google-genai`` protocol (the official SDK) against the scripted server speaking the Gemini API: a
three-turn conversation with two tool calls gets the text, calls and usage the SDK itself gets from the same
script; the request is Gemini's (system instruction, function declarations and responses); ``auto`` picks it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agentcompass.models._auto import auto_protocols, base_url_for
from agentcompass.models._streams.gemini import camel_keys
from agentcompass.models.client import Model
from agentcompass.models.config import ModelConfig
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.gateway.test_gemini import EXPECTED, SCRIPT, _direct

pytest.importorskip("google.genai")
TOOLS = [
    {"type": "function", "function": {"name": "read_file", "description": "Read a file.",
     "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "grep",
     "parameters": {"type": "object", "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}}}}},
]  # fmt: skip
KEY = "gm-key-planted-0123456789"


async def _converse(model: Model) -> list[tuple]:
    history = [{"role": "system", "content": "You are careful."}, {"role": "user", "content": "Read notes.txt."}]
    out = []
    for _ in range(3):
        reply = await model.complete(history, tools=TOOLS)
        calls = [(c.id, c.name, json.loads(c.arguments)) for c in reply.tool_calls]
        u = reply.usage
        out.append((reply.text, calls, u.input_tokens, u.output_tokens, u.cached_tokens or None, reply.finish_reason))
        turn: dict = {"role": "assistant", "content": reply.text or None}
        if reply.tool_calls:
            turn["tool_calls"] = [c.to_message() for c in reply.tool_calls]
        history.append(turn)
        history += [{"role": "tool", "tool_call_id": c.id, "content": f"{c.name} output"} for c in reply.tool_calls]
    await model.aclose()
    return out


def test_a_tool_conversation_agrees_with_the_sdk_talking_directly(tmp_path: Path) -> None:
    baseline = asyncio.run(_direct(False))
    with ScriptedModelServer(replies=SCRIPT, keep_headers=True) as srv:
        cfg = ModelConfig(id="gemini-2.5-pro", base_url=srv.base_url, api_key=KEY, api_protocol="google-genai")
        got = asyncio.run(_converse(Model(cfg)))
    assert [g[:5] for g in got] == [b[:5] for b in baseline] == EXPECTED
    assert [g[5] for g in got] == ["tool_calls", "tool_calls", "stop"]
    assert [r["path"] for r in srv.requests] == ["/v1beta/models/gemini-2.5-pro:generateContent"] * 3
    assert all(h.get("x-goog-api-key") == KEY for h in srv.raw_headers)
    last = srv.requests[-1]["body"]
    assert last["systemInstruction"] == {"parts": [{"text": "You are careful."}]}
    roles = [c["role"] for c in last["contents"]]
    assert roles == ["user", "model", "user", "model", "user"]
    answer = last["contents"][-1]["parts"][0]["functionResponse"]
    assert answer == {"id": "call_grep_2", "name": "grep", "response": {"output": "grep output"}}


def test_parameters_become_the_generation_config(tmp_path: Path) -> None:
    with ScriptedModelServer(replies=["ok"]) as srv:
        cfg = ModelConfig(id="gemini-x", base_url=srv.base_url, api_key=KEY, api_protocol="google-genai")
        params = {"temperature": 0.2, "max_tokens": 50, "stop": "END", "reasoning_effort": "low", "top_k": 3}

        async def go() -> None:
            model = Model(cfg)
            await model.complete([{"role": "user", "content": "hi"}], **params)
            await model.aclose()

        asyncio.run(go())
    gen = camel_keys(srv.requests[0]["body"])["generationConfig"]  # the SDK sends some fields under proto names
    assert gen["temperature"] == 0.2 and gen["maxOutputTokens"] == 50 and gen["stopSequences"] == ["END"]
    assert gen["topK"] == 3 and gen["thinkingConfig"] == {"thinkingLevel": "LOW"}


def test_auto_picks_the_gemini_api_for_google_and_gemini_models() -> None:
    assert auto_protocols("https://generativelanguage.googleapis.com", "x") == ["google-genai", "openai-chat"]
    assert auto_protocols("http://127.0.0.1:8000/v1", "gemini-2.5-flash") == ["google-genai", "openai-chat"]
    assert auto_protocols("http://127.0.0.1:8000/v1", "qwen3") == ["openai-chat"]
    assert base_url_for("google-genai", "http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000"
    assert base_url_for("google-genai", None).startswith("https://generativelanguage.googleapis.com")
