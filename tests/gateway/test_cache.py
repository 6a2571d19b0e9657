"""The response cache for agents behind the model gateway: the official openai SDK calls the gateway, a second
attempt asking the same gets the stored reply (streamed or not) and the endpoint sees one request; the calls are
marked miss / hit in model_calls.jsonl; the per-attempt cost limit refuses the agent."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

from agentcompass.gateway.service import Gateway
from agentcompass.interfaces import ComponentContext
from agentcompass.models.client import Model
from agentcompass.models.config import ModelConfig
from agentcompass.testing.scripted_server import ScriptedModelServer

MESSAGES = [{"role": "user", "content": "say hi"}]


def _attempt(tmp: Path, name: str) -> SimpleNamespace:
    return SimpleNamespace(attempt_dir=tmp / name, task=SimpleNamespace(id="t1"), sample=1)


def _calls(path: Path) -> list[dict]:
    return [json.loads(line) for line in (path / "model_calls.jsonl").read_text().splitlines()]


async def _ask(gateway: Gateway, model: Model, stream: bool) -> str:
    from openai import AsyncOpenAI

    session = gateway.open_session(model, "t")
    client = AsyncOpenAI(base_url=gateway.base_url + "/v1", api_key=session.token, max_retries=0)
    try:
        if not stream:
            reply = await client.chat.completions.create(model="any", messages=MESSAGES)
            return reply.choices[0].message.content
        chunks = await client.chat.completions.create(model="any", messages=MESSAGES, stream=True)
        return "".join([c.choices[0].delta.content or "" async for c in chunks if c.choices])
    finally:
        await client.close()
        gateway.close_session(session)


def test_a_second_attempt_behind_the_gateway_is_answered_from_the_cache(tmp_path):
    async def scenario(server: ScriptedModelServer):
        config = ModelConfig(
            id="served-model",
            base_url=server.base_url,
            api_key="sk-real-key-123456789",
            api_protocol="openai-chat",
            cache="read_write",
            prices={"input_per_mtok": 1.0, "output_per_mtok": 1.0},
        )
        root = Model(config, ComponentContext(data_dir=tmp_path / "data"))
        gateway = await Gateway().start()
        try:
            first, second = root.fork(_attempt(tmp_path, "a1")), root.fork(_attempt(tmp_path, "a2"))
            texts = [await _ask(gateway, first, stream=False), await _ask(gateway, second, stream=True)]
            return texts, first.usage, second.usage
        finally:
            await gateway.aclose()
            await root.aclose()

    with ScriptedModelServer(replies=["hello there"]) as server:
        texts, first, second = asyncio.run(scenario(server))
        assert len(server.requests) == 1
    assert texts == ["hello there", "hello there"]  # the stored body, streamed to the agent that asked for it
    assert (first.n_calls, first.cache_hits, second.n_calls, second.cache_hits) == (1, 0, 0, 1)
    assert second.cost_usd == 0.0 and second.cost_saved_usd == first.cost_usd > 0
    miss, hit = _calls(tmp_path / "a1")[0], _calls(tmp_path / "a2")[0]
    assert (miss["cache"], hit["cache"], miss["key"]) == ("miss", "hit", hit["key"])
    assert hit["source"] == "gateway" and hit["usage"]["cost_usd"] == 0.0


def test_the_gateway_refuses_an_agent_past_the_attempt_cost_limit(tmp_path):
    async def scenario(server: ScriptedModelServer):
        config = ModelConfig(
            id="served-model",
            base_url=server.base_url,
            api_key="sk-real-key-123456789",
            api_protocol="openai-chat",
            prices={"input_per_mtok": 1e6, "output_per_mtok": 0},
        )
        root = Model(config)
        gateway = await Gateway().start()
        try:
            model = root.fork(_attempt(tmp_path, "a1"))
            model.set_attempt_cost_limit(0.5)
            await _ask(gateway, model, stream=False)
            session = gateway.open_session(model, "t")
            from openai import AsyncOpenAI, BadRequestError

            client = AsyncOpenAI(base_url=gateway.base_url + "/v1", api_key=session.token, max_retries=0)
            try:
                await client.chat.completions.create(model="any", messages=MESSAGES)
            except BadRequestError as exc:
                return str(exc), session.limit_hit
            finally:
                await client.close()
            raise AssertionError("the second call was not refused")
        finally:
            await gateway.aclose()
            await root.aclose()

    with ScriptedModelServer(default_reply="hi") as server:
        message, limit = asyncio.run(scenario(server))
        assert len(server.requests) == 1
    assert "attempt_cost_limit_usd=0.5" in message and limit == "cost_limit"
