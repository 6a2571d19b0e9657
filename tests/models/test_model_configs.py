"""The shipped model configs (conf/model/*.yaml) build and work."""

from __future__ import annotations

from asyncio import gather, run
from pathlib import Path

from agentcompass._config.compose import component_config
from agentcompass._config.registry import build
from agentcompass.interfaces import ComponentContext
from agentcompass.testing.scripted_server import ScriptedModelServer


def _load(name: str) -> dict:
    return component_config("model", name)


def test_scripted_config_talks_to_a_server_on_the_env_port(tmp_path: Path, monkeypatch) -> None:
    with ScriptedModelServer(replies=["scripted hello"]) as srv:
        monkeypatch.setenv("AGENTCOMPASS_SCRIPTED_PORT", str(srv.port))
        model = build("model", _load("scripted"), ComponentContext(data_dir=tmp_path))
        reply = run(model.complete([{"role": "user", "content": "hi"}]))
    assert reply.text == "scripted hello" and model.describe()["base_url"] == srv.base_url
    assert model.provider == "scripted" and srv.requests[0]["body"]["model"] == "scripted"


def test_scripted_config_default_port(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("AGENTCOMPASS_SCRIPTED_PORT", raising=False)
    model = build("model", _load("scripted"), ComponentContext(data_dir=tmp_path))
    assert model.describe()["base_url"] == "http://127.0.0.1:8765/v1"


def test_generic_config_takes_the_model_name(tmp_path: Path) -> None:
    cfg = {**_load("generic"), "id": "qwen3-8b", "base_url": "http://127.0.0.1:8000/v1"}
    model = build("model", cfg, ComponentContext(data_dir=tmp_path))
    assert (model.model_id, model.protocol, model.provider) == ("qwen3-8b", "openai-chat", "127.0.0.1:8000")
    assert model.config.max_retries == 8 and model.config.retry_budget_s == 300


def test_none_config_builds_nothing(tmp_path: Path) -> None:
    assert build("model", _load("none"), ComponentContext(data_dir=tmp_path)) is None


def test_server_handles_100_concurrent_connections(make_model) -> None:
    with ScriptedModelServer(default_reply="ok", latency_s=0.3) as srv:
        model = make_model(srv.base_url)

        async def go():
            out = await gather(*(model.complete([{"role": "user", "content": "x"}]) for _ in range(100)))
            await model.aclose()
            return out

        assert [r.text for r in run(go())] == ["ok"] * 100
    assert srv.max_concurrency == 100 and model.usage.n_retries == 0
