"""The Gemini API through the response cache and ``--replay``, as the other APIs: the google-genai SDK behind the
gateway on a Gemini endpoint gets a second attempt's answer from the cache (streamed from the stored body), a
recorded attempt's Gemini calls (passed on and translated) are replayed with the endpoint down, and the model
client's own ``google-genai`` calls are cached too."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agentcompass.gateway.service import Gateway
from agentcompass.interfaces import ComponentContext
from agentcompass.models.client import Model
from agentcompass.models.config import ModelConfig
from agentcompass.testing.scripted_server import ScriptedModelServer

genai = pytest.importorskip("google.genai")
from google.genai import types  # noqa: E402

PRICES = {"input_per_mtok": 1.0, "output_per_mtok": 1.0}
ATTEMPT = Path("tasks") / "t1" / "sample-1" / "attempt-1"


async def _ask(gateway: Gateway, token: str, text: str, stream: bool) -> str:
    client = genai.Client(api_key=token, http_options=types.HttpOptions(base_url=gateway.base_url))
    if not stream:
        reply = await client.aio.models.generate_content(model="gemini-x", contents=text)
        return reply.text or ""
    chunks = await client.aio.models.generate_content_stream(model="gemini-x", contents=text)
    return "".join([c.text or "" async for c in chunks])


async def _attempt(config: ModelConfig, where: Path, calls: list[tuple[str, bool]], data: Path) -> tuple[list, Any]:
    root = Model(config, ComponentContext(data_dir=data))
    gateway = await Gateway().start()
    try:
        model = root.fork(SimpleNamespace(attempt_dir=where, task=SimpleNamespace(id="t1"), sample=1))
        session = gateway.open_session(model, "t")
        out = [await _ask(gateway, session.token, text, stream) for text, stream in calls]
        return out, model.usage
    finally:
        await gateway.aclose()
        await root.aclose()


def _lines(where: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (where / "model_calls.jsonl").read_text().splitlines()]


def test_a_second_attempt_is_answered_from_the_cache(tmp_path: Path) -> None:
    with ScriptedModelServer(replies=["hello there"]) as srv:
        config = ModelConfig(
            id="served", base_url=srv.base_url, api_key="gm-real-key-0123456789", api_protocol="google-genai",
            cache="read_write", prices=PRICES,
        )  # fmt: skip
        first, _ = asyncio.run(_attempt(config, tmp_path / "a1", [("say hi", False)], tmp_path / "data"))
        second, usage = asyncio.run(_attempt(config, tmp_path / "a2", [("say hi", True)], tmp_path / "data"))
        assert len(srv.requests) == 1
    assert first == second == ["hello there"]
    assert (usage.n_calls, usage.cache_hits) == (0, 1) and usage.cost_saved_usd > 0
    assert [c["cache"] for c in _lines(tmp_path / "a1") + _lines(tmp_path / "a2")] == ["miss", "hit"]


@pytest.mark.parametrize("protocol", ["google-genai", "openai-chat"])
def test_recorded_gemini_calls_are_replayed_with_the_endpoint_down(protocol: str, tmp_path: Path) -> None:
    run = tmp_path / "recorded"
    (run / ATTEMPT).mkdir(parents=True)
    (run / "results.jsonl").write_text(json.dumps({"task_id": "t1", "sample": 1, "attempt_dir": str(ATTEMPT)}))
    with ScriptedModelServer(replies=["hello there", "goodbye"]) as srv:
        config = ModelConfig(id="m", base_url=srv.base_url, api_key="gm-k-0123456789", api_protocol=protocol)
        recorded, _ = asyncio.run(_attempt(config, run / ATTEMPT, [("hi", False), ("bye", True)], tmp_path / "d"))
    replay = ModelConfig(id="m", base_url=srv.base_url, api_protocol=protocol, replay=str(run))
    again, usage = asyncio.run(_attempt(replay, tmp_path / "r", [("bye", False), ("hi", True)], tmp_path / "d"))
    assert recorded == ["hello there", "goodbye"] and again == ["goodbye", "hello there"]
    assert (usage.n_calls, usage.cache_hits) == (0, 2)
    assert [c["cache"] for c in _lines(tmp_path / "r")] == ["replay", "replay"]


def test_the_model_clients_own_calls_are_cached(tmp_path: Path) -> None:
    async def twice(srv: ScriptedModelServer) -> list[Any]:
        config = ModelConfig(
            id="gemini-x", base_url=srv.base_url, api_key="gm-key-0123456789", api_protocol="google-genai",
            cache="read_write",
        )  # fmt: skip
        root = Model(config, ComponentContext(data_dir=tmp_path / "data"))
        out = []
        for name in ("a1", "a2"):
            fork = root.fork(SimpleNamespace(attempt_dir=tmp_path / name, task=SimpleNamespace(id="t"), sample=1))
            out.append(await fork.complete([{"role": "user", "content": "hi"}]))
        await root.aclose()
        return out

    with ScriptedModelServer(replies=["cached answer"]) as srv:
        first, second = asyncio.run(twice(srv))
        assert len(srv.requests) == 1
    assert first.text == second.text == "cached answer" and (first.source, second.source) == ("endpoint", "cache")
