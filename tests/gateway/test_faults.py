"""Faults: retried before the first byte (the agent sees one clean answer), an error event after it, a dead endpoint
fails fast, bad requests get the API's own error shape."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path

import httpx
import pytest

from agentcompass.errors import ModelEndpointDownError
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.gateway.support import rig

FAST = {"backoff_base_s": 0.01, "backoff_max_s": 0.02}
MSG = {"model": "m", "max_tokens": 50, "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize("stream", [True, False])
def test_faults_before_the_first_byte_are_retried(tmp_path: Path, stream: bool) -> None:
    from anthropic import AsyncAnthropic

    faults = [{"at": 1, "kind": "429", "retry_after": 0.01}, {"at": 2, "kind": "500"}, {"at": 3, "kind": "drop"}]

    async def main() -> None:
        with ScriptedModelServer(["the one answer"], faults=faults) as server:
            async with rig(server, "anthropic-messages", tmp_path, **FAST) as r:
                client = AsyncAnthropic(base_url=r.base_url, api_key=r.token, max_retries=0)
                if stream:
                    async with client.messages.stream(**MSG) as s:
                        text = (await s.get_final_message()).content[0].text
                else:
                    text = (await client.messages.create(**MSG)).content[0].text
                assert text == "the one answer"
                assert server.n_requests == 4 and server.n_faults_injected == 3
                assert r.model.usage.n_retries == 3 and r.model.usage.n_calls == 1
                (line,) = r.calls()
                assert line["retries"] == 3 and line["status"] == "ok"

    asyncio.run(main())


@pytest.mark.parametrize("protocol", ["anthropic-messages", "openai-responses", "openai-chat"])
def test_a_stream_cut_after_its_first_bytes_ends_with_an_error_event(tmp_path: Path, protocol: str) -> None:
    path = {"anthropic-messages": "/v1/messages", "openai-responses": "/v1/responses"}.get(
        protocol, "/v1/chat/completions"
    )
    body = {**MSG, "stream": True, "input": "hi"} if protocol == "openai-responses" else {**MSG, "stream": True}

    async def main() -> None:
        reply = {"text": "a long answer cut short", "drop_after_events": 3, "event_delay_s": 0.01}
        with ScriptedModelServer([reply]) as server:
            async with rig(server, protocol, tmp_path, **FAST) as r:
                async with httpx.AsyncClient(timeout=60) as c:
                    resp = await c.post(r.base_url + path, json=body, headers={"x-api-key": r.token})
                assert resp.status_code == 200
                frames = [f for f in resp.text.split("\n\n") if f.strip()]
                assert len(frames) == 4  # three relayed events, then the error
                last = frames[-1]
                assert "upstream stream failed" in last
                assert last.startswith("event: error") if protocol != "openai-chat" else '"error"' in last
                assert server.n_requests == 1  # no retry once bytes went to the agent
                (line,) = r.calls()
                assert line["status"] == "error" and line["stream"] == {"agent": True, "upstream": True}

    asyncio.run(main())


def test_a_dead_endpoint_fails_fast_and_stops_the_request(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]  # closed again below: nothing listens there

    async def main() -> None:
        with ScriptedModelServer([]) as server:
            server.port = dead  # the rig's model points at a port where nothing listens
            async with rig(server, "anthropic-messages", tmp_path, fail_fast_after=2, **FAST) as r:
                t0 = time.monotonic()
                async with httpx.AsyncClient(timeout=60) as c:
                    for _ in range(3):
                        resp = await c.post(r.base_url + "/v1/messages", json=MSG, headers={"x-api-key": r.token})
                assert resp.status_code == 503, resp.text
                assert resp.json()["type"] == "error" and "unreachable" in resp.json()["error"]["message"]
                assert isinstance(r.session.fatal, ModelEndpointDownError)
                assert time.monotonic() - t0 < 60

    asyncio.run(main())


def test_bad_requests_get_the_apis_error_shape(tmp_path: Path) -> None:
    async def main() -> None:
        with ScriptedModelServer(["x"]) as server:
            async with rig(server, "openai-responses", tmp_path) as r:  # no translation Messages -> Responses
                auth = {"Authorization": f"Bearer {r.token}"}
                async with httpx.AsyncClient(timeout=60) as c:
                    nothing = await c.post(r.base_url + "/v1/chat/completions", json={})
                    route = await c.post(r.base_url + "/v1/embeddings", json={}, headers=auth)
                    text = await c.post(r.base_url + "/v1/chat/completions", content=b"{not json", headers=auth)
                    msg = await c.post(r.base_url + "/v1/messages", json=MSG, headers=auth)
                    models = await c.get(r.base_url + "/v1/models", headers=auth)
                assert nothing.status_code == 401 and nothing.json()["error"]["code"] == "invalid_api_key"
                assert route.status_code == 404 and "/v1/embeddings" in route.json()["error"]["message"]
                assert text.status_code == 400 and "not JSON" in text.json()["error"]["message"]
                assert msg.status_code == 400 and "translation" in msg.json()["error"]["message"]
                assert msg.json()["type"] == "error"  # Anthropic's shape on an Anthropic route
                assert models.json()["data"][0]["id"] == "served-model"
                assert server.n_requests == 0

    asyncio.run(main())


@pytest.mark.parametrize("agent", ["anthropic-messages", "openai-responses"])
def test_faults_before_the_first_byte_of_a_translated_call_are_retried(tmp_path: Path, agent: str) -> None:
    """Claude Code and Codex on a chat endpoint: 429, 500, a dropped connection and a malformed body before the
    first byte are retried; the agent's SDK sees one clean streamed answer."""
    from tests.gateway.agents import AGENTS

    faults = [{"at": 1, "kind": "429", "retry_after": 0.01}, {"at": 2, "kind": "500"}, {"at": 3, "kind": "drop"}]
    faults.append({"at": 4, "kind": "malformed"})

    async def main() -> None:
        with ScriptedModelServer(["the translated answer"], faults=faults) as server:
            async with rig(server, "openai-chat", tmp_path, **FAST) as r:
                client = AGENTS[agent](r.base_url, r.token)
                got = await client.call(stream=True)
                await client.aclose()
                text = (
                    got["content"][0]["text"]
                    if agent == "anthropic-messages"
                    else got["output"][0]["content"][0]["text"]
                )
                assert text == "the translated answer"
                assert server.n_requests == 5 and r.model.usage.n_retries == 4 and r.model.usage.n_calls == 1
                (line,) = r.calls()
                assert line["retries"] == 4 and line["status"] == "ok" and line["upstream_protocol"] == "openai-chat"

    asyncio.run(main())


def test_an_endpoint_slower_than_the_request_timeout_is_retried(tmp_path: Path) -> None:
    """``request_timeout_s`` bounds the wait for the endpoint's answer on the gateway's own HTTP pool too."""

    async def main() -> None:
        replies = [{"text": "too late", "delay_s": 3.0}, "in time"]
        with ScriptedModelServer(replies) as server:
            async with rig(server, "openai-chat", tmp_path, request_timeout_s=1.0, **FAST) as r:
                async with httpx.AsyncClient(timeout=60) as c:
                    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
                    resp = await c.post(r.base_url + "/v1/chat/completions", json=body, headers={"x-api-key": r.token})
                assert resp.status_code == 200 and "in time" in resp.text and "too late" not in resp.text
                (line,) = r.calls()
                assert line["retries"] == 1 and line["status"] == "ok"

    asyncio.run(main())


def test_a_run_whose_endpoint_is_down_stops_within_seconds(tmp_path: Path) -> None:
    """Agents calling the gateway of a run whose endpoint is down: the fail-fast circuit stops the request (no
    attempt starts after it), as it does for harnesses calling ``complete``."""
    import json

    from agentcompass import run_evaluation
    from agentcompass.errors import EvaluationFailedError

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    t0 = time.monotonic()
    with pytest.raises(EvaluationFailedError, match="is unreachable"):
        run_evaluation(
            benchmark="synthetic",
            harness="nop",
            environment="local",
            model="gw-model",
            overrides=["harness._target_=tests.helpers.GatewayEchoHarness", "model.backoff_base_s=0.01"],
            benchmark_params={"n_tasks": 12},
            model_base_url=f"http://127.0.0.1:{dead}/v1",
            model_api_key="sk-dead-endpoint-1234",
            model_api_protocol="openai-chat",
            environment_params={"root_dir": str(tmp_path / "ws")},
            results_dir=str(tmp_path / "results"),
            task_concurrency=2,
            progress="none",
        )
    assert time.monotonic() - t0 < 120
    results = [json.loads(p.read_text()) for p in (tmp_path / "results").rglob("result.json")]
    assert 1 <= len(results) < 12  # the request stopped: not every task was started
    assert any(r["error_type"] == "ModelEndpointDownError" for r in results)
