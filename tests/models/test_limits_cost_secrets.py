"""Provider concurrency limits, cost, configuration errors and secrets."""

from __future__ import annotations

import logging
from asyncio import gather, run
from pathlib import Path

import pytest

from agentcompass._config.registry import build
from agentcompass.errors import ConfigError, ModelError
from agentcompass.interfaces import ComponentContext
from agentcompass.testing.scripted_server import ScriptedModelServer

USER = [{"role": "user", "content": "hello"}]


def _burst(model, n: int, fork: bool = False) -> list:
    async def go():
        clients = [model.fork() if fork else model for _ in range(n)]
        out = await gather(*(c.complete(USER) for c in clients))
        await model.aclose()
        return out

    return run(go())


@pytest.mark.parametrize("limit", [1, 4])
def test_config_concurrency_limit_holds(make_model, limit: int) -> None:
    with ScriptedModelServer(default_reply="ok", latency_s=0.1) as srv:
        model = make_model(srv.base_url, max_concurrency=limit)
        assert len(_burst(model, 3 * limit)) == 3 * limit
    assert srv.max_concurrency == limit


def test_set_concurrency_limit_is_shared_by_forks(make_model) -> None:
    with ScriptedModelServer(default_reply="ok", latency_s=0.1) as srv:
        model = make_model(srv.base_url)
        model.set_concurrency_limit(3)
        _burst(model, 9, fork=True)
    assert srv.max_concurrency == 3
    with pytest.raises(ConfigError, match="expected an integer >= 1"):
        model.set_concurrency_limit(0)


def test_without_limit_all_callers_reach_the_server(make_model) -> None:
    with ScriptedModelServer(default_reply="ok", latency_s=0.2) as srv:
        _burst(make_model(srv.base_url), 12)
    assert srv.max_concurrency == 12


def test_provider_defaults_to_host_and_port(make_model) -> None:
    model = make_model("http://127.0.0.1:8123/v1")
    assert model.provider == "127.0.0.1:8123"
    assert make_model("https://api.openai.com/v1").provider == "api.openai.com"
    assert make_model("http://127.0.0.1:8123/v1", provider="local-vllm").provider == "local-vllm"


@pytest.mark.parametrize("protocol", ["openai-chat", "openai-responses", "anthropic-messages"])
def test_cost_from_prices(make_model, protocol: str) -> None:
    reply = {"text": "x", "usage": {"input_tokens": 1000, "output_tokens": 100, "cached_tokens": 400}}
    prices = {"input_per_mtok": 2.0, "output_per_mtok": 8.0, "cached_input_per_mtok": 0.5}
    with ScriptedModelServer(replies=[reply, reply]) as srv:
        model = make_model(srv.base_url, api_protocol=protocol, prices=prices)
        first = run(model.complete(USER))
        fork = model.fork()
        run(fork.complete(USER))
    expected = (600 * 2.0 + 400 * 0.5 + 100 * 8.0) / 1e6
    assert first.usage.cost_usd == pytest.approx(expected)
    assert (first.usage.input_tokens, first.usage.cached_tokens, first.usage.output_tokens) == (1000, 400, 100)
    assert model.usage.cost_usd == pytest.approx(expected) and fork.usage.cost_usd == pytest.approx(expected)
    assert model.total_usage.cost_usd == pytest.approx(2 * expected)


def test_no_prices_and_a_model_unknown_to_the_price_table_cost_null_never_0(make_model) -> None:
    with ScriptedModelServer(replies=["a b"]) as srv:
        model = make_model(srv.base_url)
        assert run(model.complete(USER)).usage.cost_usd is None
        assert model.usage.cost_usd is None and model.price_info["source"] is None


@pytest.mark.parametrize(
    "params,key,expected",
    [
        ({"temperature": "hot"}, "temperature", "a number"),
        ({"max_tokens": 1.5}, "max_tokens", "an integer"),
        ({"max_tokens": True}, "max_tokens", "an integer"),
        ({"stop": ["a", 3]}, "stop", "a list of strings"),
        ({"reasoning": "high"}, "reasoning", "a mapping"),
    ],
)
def test_params_of_the_wrong_type_are_config_errors(make_model, params, key, expected) -> None:
    with pytest.raises(ConfigError) as info:
        make_model("http://127.0.0.1:9/v1", params=params)
    text = str(info.value)
    assert key in text and repr(params[key]) in text and expected in text and len(text.splitlines()) == 1


def test_call_params_of_the_wrong_type_are_config_errors(make_model) -> None:
    with ScriptedModelServer(replies=["x"]) as srv:
        with pytest.raises(ConfigError, match="temperature"):
            run(make_model(srv.base_url).complete(USER, temperature="warm"))
    assert srv.n_requests == 0


def test_config_errors(make_model, monkeypatch) -> None:
    with pytest.raises(ConfigError, match="model.id is not set"):
        make_model("http://127.0.0.1:9/v1", id=None)
    with pytest.raises(ConfigError, match="api_protocol"):
        make_model("http://127.0.0.1:9/v1", api_protocol="grpc")
    with pytest.raises(ConfigError, match="unknown key 'temprature'"):
        make_model("http://127.0.0.1:9/v1", temprature=0)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        make_model("https://api.openai.com/v1", api_key=None)


def test_key_from_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-123456")
    with ScriptedModelServer(replies=["ok"], api_key="sk-from-env-123456") as srv:
        model = build(
            "model",
            {
                "_target_": "agentcompass.models.client.Model",
                "id": "m",
                "base_url": srv.base_url,
                "api_protocol": "openai-chat",
            },
            ComponentContext(data_dir=tmp_path),
        )
        assert run(model.complete(USER)).text == "ok"


def test_key_never_in_logs_repr_or_errors(make_model, api_key: str, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    faults = [{"kind": "429", "at": 1}, {"kind": "drop", "at": 2}, {"kind": "500", "at": 3}]
    with ScriptedModelServer(replies=["ok"], faults=faults, api_key="another-key") as srv:
        model = make_model(srv.base_url, params={"temperature": 0})
        with pytest.raises(ModelError) as info:
            run(model.complete(USER))
    assert srv.n_requests == 4 and info.value.status == 401
    seen = [
        caplog.text,
        str(info.value),
        repr(info.value),
        repr(model.config),
        str(model.config),
        model.config.model_dump_json(),
        str(model.config.model_dump()),
        str(model.describe()),
        repr(model),
        str(vars(model)),
    ]
    assert "retry 3/8" in caplog.text
    for text in seen:
        assert api_key not in text
