"""Agents of the other APIs on a Gemini endpoint: each official SDK (openai Chat and Responses, anthropic Messages)
holds the three-turn conversation with two tool calls (system prompt, an image, tools) through the gateway in front of
the scripted server speaking the Gemini API, streamed and not; the endpoint gets the conversation with identical
content (read here from the Gemini body independently of the gateway's code), and the agent gets the same replies as
from an endpoint of its own API."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agentcompass.models._streams.gemini import camel_keys
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.gateway.agents import AGENTS
from tests.gateway.conversation import conversation, reply, tools
from tests.gateway.support import rig
from tests.gateway.test_translation import EXPECTED, SCRIPT, _converse

pytest.importorskip("google.genai")


def _parts_text(parts: list[dict[str, Any]]) -> str:
    out = []
    for p in parts:
        if "text" in p and not p.get("thought"):
            out.append(p["text"])
        elif "inlineData" in p:
            out.append(f"[image data:{p['inlineData']['mimeType']};base64,{p['inlineData']['data']}]")
        elif "fileData" in p:
            out.append(f"[image {p['fileData']['fileUri']}]")
    return "".join(out)


def gemini_conversation(body: dict[str, Any]) -> list[tuple]:
    """A Gemini request as the neutral list of :func:`tests.gateway.conversation.conversation`."""
    body, out = camel_keys(body), []
    if body.get("systemInstruction"):
        out.append(("system", "".join(p.get("text", "") for p in body["systemInstruction"]["parts"])))
    for content in body["contents"]:
        parts = content["parts"]
        if content["role"] == "model":
            calls = [(p["functionCall"]["id"], p["functionCall"]["name"], p["functionCall"]["args"])
                     for p in parts if "functionCall" in p]  # fmt: skip
            out.append(("assistant", _parts_text(parts), calls))
            continue
        for p in parts:
            if "functionResponse" in p:
                out.append(("tool", p["functionResponse"]["id"], p["functionResponse"]["response"]["output"]))
        rest = [p for p in parts if "functionResponse" not in p]
        if rest:
            out.append(("user", _parts_text(rest)))
    return out


def gemini_tools(body: dict[str, Any]) -> list[tuple]:
    body = camel_keys(body)
    decls = [d for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []]
    return [(d["name"], d.get("description"), d.get("parametersJsonSchema")) for d in decls]


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("agent_protocol", ["openai-chat", "anthropic-messages", "openai-responses"])
def test_an_agent_of_another_api_on_a_gemini_endpoint(agent_protocol: str, stream: bool, tmp_path: Path) -> None:
    asyncio.run(_round_trip(agent_protocol, stream, tmp_path))


async def _round_trip(agent_protocol: str, stream: bool, tmp_path: Path) -> None:
    with ScriptedModelServer(replies=SCRIPT) as direct_srv:
        direct = AGENTS[agent_protocol](direct_srv.base_url.removesuffix("/v1"), "sk-direct-key-000")
        baseline = await _converse(direct, direct_srv, stream)
        await direct.aclose()
    with ScriptedModelServer(replies=SCRIPT) as srv:
        async with rig(srv, "google-genai", tmp_path) as r:
            agent = AGENTS[agent_protocol](r.base_url, r.token)
            turns = await _converse(agent, srv, stream)
            await agent.aclose()
            lines = r.calls()
    method = "streamGenerateContent" if stream else "generateContent"
    assert [q["path"] for q in srv.requests] == [f"/v1beta/models/served-model:{method}"] * 3
    for n, (turn, base) in enumerate(zip(turns, baseline, strict=True)):
        assert gemini_conversation(turn["received"]) == conversation(agent_protocol, turn["sent"]), n
        assert gemini_tools(turn["received"]) == tools(agent_protocol, turn["sent"])
        assert reply(agent_protocol, turn["got"]) == EXPECTED[n] == reply(agent_protocol, base["got"])
        assert "model" not in turn["received"] and "stream" not in turn["received"]
    assert [(x["agent_protocol"], x["upstream_protocol"], x["status"]) for x in lines] == [
        (agent_protocol, "google-genai", "ok")
    ] * 3
    assert [x["usage"]["input"] for x in lines] == [120, 160, 200]
    assert r.model.usage.input_tokens == 480 and r.model.usage.output_tokens == 27
    assert json.dumps(srv.requests[-1]["body"]).count("thoughtSignature") >= 1  # calls Gemini 3 did not make
