"""The gateway's MCP route: a conversation served as an MCP server to the official Python SDK's client (initialize,
tools/list, tools/call of a tool, of the user tool, after the end), refused without the attempt's token, recorded
in ``mcp_calls.jsonl``; and a whole run whose harness converses through it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from agentcompass import run_evaluation
from agentcompass.conversation import USER_TOOL
from agentcompass.gateway import conversing
from agentcompass.gateway.service import Gateway
from agentcompass.interfaces import AttemptContext, Task
from agentcompass.testing.conversation import FAREWELL, OPENING, REPLIES, TOOLS, ScriptedConversation, run_tool
from tests.gateway import mcp_support

pytest.importorskip("mcp")


async def _served(tmp_path: Path, body: Any) -> Any:
    """Run ``body(url, token, conversation)`` against a gateway serving a fresh scripted conversation."""
    conversation = ScriptedConversation()
    await conversation.start()
    ctx = AttemptContext(task=Task("syn-0", ""), attempt=1, attempt_dir=tmp_path, benchmark=None)
    ctx.conversation = conversation
    gateway = await Gateway().start()
    try:
        session = gateway.open_session(None, "mcp-test", attempt=ctx)
        return await body(gateway.base_url + "/mcp", session.token, conversation)
    finally:
        await gateway.aclose()


def test_an_mcp_client_converses_through_the_gateway(tmp_path: Path) -> None:
    async def exchange(url: str, token: str, conversation: ScriptedConversation) -> Any:
        async with mcp_support.client(url, token) as session:
            init = session.initialize_result
            listed = (await session.list_tools()).tools
            await session.send_ping()
            answers = [await session.call_tool(name, args) for name, args in mcp_support.SCRIPT]
            bad = await session.call_tool("add", {"a": "x", "b": 1})
        return init, listed, answers, bad

    init, listed, answers, bad = asyncio.run(_served(tmp_path, exchange))
    assert init.server_info.name == "agentcompass" and init.capabilities.tools is not None
    expected = [(t["function"]["name"], t["function"]["parameters"]) for t in TOOLS]
    assert [(t.name, t.input_schema) for t in listed[:-1]] == expected
    assert listed[-1].name == USER_TOOL and listed[-1].input_schema["required"] == ["message"]
    texts = [mcp_support.text_of(a) for a in answers]
    assert texts[0] == run_tool("add", {"a": 2, "b": 3})[0]
    assert texts[1] == REPLIES[0]
    assert texts[2] == run_tool("reverse", {"text": "stressed"})[0]
    assert texts[3] == REPLIES[1]
    assert texts[4].startswith(FAREWELL) and conversing.ENDED in texts[4]  # the user's last turn ends it
    assert texts[5] == conversing.ENDED and answers[5].is_error
    assert not any(a.is_error for a in answers[:5])
    assert bad.is_error and mcp_support.text_of(bad) == conversing.ENDED  # the conversation is over


def test_the_transcript_and_the_call_record(tmp_path: Path) -> None:
    async def exchange(url: str, token: str, conversation: ScriptedConversation) -> Any:
        async with mcp_support.client(url, token) as session:
            failed = await session.call_tool("add", {"a": "two", "b": 3})
            assert failed.is_error
            for name, args in mcp_support.SCRIPT:
                await session.call_tool(name, args)
        return conversation

    conversation = asyncio.run(_served(tmp_path, exchange))
    messages = conversation.transcript.messages
    assert [m.role for m in messages][:3] == ["user", "assistant", "tool"]
    assert messages[0].content == OPENING
    assert messages[1].tool_calls[0].name == "add" and messages[1].tool_calls[0].arguments == {"a": "two", "b": 3}
    assert messages[2].error and messages[2].tool_call_id == messages[1].tool_calls[0].id
    said = [m.content for m in messages if m.role == "assistant" and m.content]
    assert said == [args["message"] for name, args in mcp_support.SCRIPT if name == USER_TOOL]
    assert conversation.transcript.termination == "user_stop"
    lines = [json.loads(x) for x in (tmp_path / conversing.FILE_NAME).read_text().splitlines()]
    assert [x["tool"] for x in lines] == ["add", *(name for name, _ in mcp_support.SCRIPT)]
    assert lines[0]["is_error"] and lines[0]["arguments"] == {"a": "two", "b": 3}
    assert all(x["duration_s"] >= 0 and x["started"] for x in lines)
    assert [x["seq"] for x in lines] == list(range(1, len(lines) + 1))
    recorded = [t for x in lines for t in x["turns"]]
    assert recorded == list(range(1, len(messages)))  # every message after the opening, each once, in order
    assert lines[-1]["result"] == conversing.ENDED and lines[-1]["done"]


def test_a_wrong_or_missing_token_is_refused(tmp_path: Path) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}

    async def probe(url: str, token: str, conversation: ScriptedConversation) -> list[Any]:
        out = []
        async with aiohttp.ClientSession() as http:
            for headers in ({"Authorization": "Bearer acgw-wrong"}, {}, {"Authorization": f"Bearer {token}"}):
                async with http.post(url, json=init, headers=headers) as r:
                    out.append((r.status, await r.json()))
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            async with http.post(url, json=note, headers={"Authorization": f"Bearer {token}"}) as r:
                out.append((r.status, await r.read()))
            async with http.get(url, headers={"Authorization": f"Bearer {token}"}) as r:
                out.append((r.status, None))
            call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "nope", "arguments": {}}}
            async with http.post(url, json=call, headers={"Authorization": f"Bearer {token}"}) as r:
                out.append((r.status, await r.json()))
        return out

    (wrong, missing, right, note, get, unknown) = asyncio.run(_served(tmp_path, probe))
    assert wrong[0] == 401 and missing[0] == 401
    assert right[0] == 200 and right[1]["result"]["protocolVersion"] == "2025-06-18"
    assert note == (202, b"")
    assert get[0] == 405
    assert unknown[1]["error"]["code"] == -32602
    assert not (tmp_path / conversing.FILE_NAME).exists()  # nothing reached the conversation


def test_a_run_converses_through_the_mcp_route(tmp_path: Path) -> None:
    """The attempt's gateway serves its conversation: the transcript is graded, the calls are recorded."""
    result = run_evaluation(
        benchmark="synthetic",
        harness="oracle",
        model="m",
        model_base_url="http://127.0.0.1:9/v1",  # never called: the harness talks only to the MCP route
        model_api_key="k-unused",
        environment="memory",
        benchmark_params={"_target_": "agentcompass.testing.conversation.CalculatorBenchmark", "n_tasks": 1},
        harness_params={"_target_": "tests.gateway.mcp_support.McpScriptHarness"},
        results_dir=tmp_path / "results",
        progress="none",
    )
    assert result["metrics"]["mean_reward"] == 1.0, result
    (path,) = [p for p in (tmp_path / "results").rglob("result.json") if "tasks" in p.parts]
    row = json.loads(path.read_text())
    answers = row["agent"]["info"]["answers"]
    assert [a["text"] for a in answers][:2] == ["5", REPLIES[0]]
    assert row["agent"]["transcript"]["termination"] == "user_stop"
    lines = (path.parent / conversing.FILE_NAME).read_text().splitlines()
    assert len(lines) == len(mcp_support.SCRIPT)
