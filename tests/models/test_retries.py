"""Retries, backoff, Retry-After, budgets and non-retryable errors, against real faults over HTTP."""

from __future__ import annotations

import email.utils
import logging
import time
from asyncio import Semaphore, gather, run

import pytest

from agentcompass.errors import ContextLengthExceededError, ModelError, ModelRetryableError
from agentcompass.models._errors import retry_after_s
from agentcompass.testing.scripted_server import ScriptedModelServer

USER = [{"role": "user", "content": "hello"}]


def _echo(request: dict) -> dict:
    return {"text": f"reply to {request['body']['messages'][-1]['content']}"}


@pytest.mark.parametrize("protocol", ["openai-chat", "anthropic-messages"])
def test_30_percent_faults_200_calls_all_succeed_and_retries_match(make_model, protocol: str) -> None:
    with ScriptedModelServer(replies=_echo, fault_rate=0.3, fault_kinds=["429", "500", "drop"], seed=7) as srv:
        model = make_model(
            srv.base_url,
            api_protocol=protocol,
            max_retries=30,
            retry_budget_s=120,
            backoff_base_s=0.002,
            backoff_max_s=0.02,
        )
        gate = Semaphore(16)

        async def one(i: int):
            async with gate:
                return await model.complete([{"role": "user", "content": f"q{i}"}])

        async def go():
            out = await gather(*(one(i) for i in range(200)))
            await model.aclose()
            return out

        replies = run(go())
    assert [r.text for r in replies] == [f"reply to q{i}" for i in range(200)]
    assert srv.n_faults_injected >= 40 and set(srv.faults_by_kind) == {"429", "500", "drop"}
    assert model.usage.n_retries == srv.n_faults_injected == sum(r.usage.n_retries for r in replies)
    assert model.usage.n_calls == 200 and srv.n_requests == 200 + srv.n_faults_injected


def test_retry_after_seconds_and_ms_are_honoured(make_model) -> None:
    faults = [{"kind": "429", "at": 1, "retry_after": 0.6}, {"kind": "503", "at": 3, "retry_after_ms": 400}]
    with ScriptedModelServer(default_reply="ok", faults=faults) as srv:
        model = make_model(srv.base_url)
        t0 = time.monotonic()
        run(model.complete(USER))
        t1 = time.monotonic()
        run(model.complete(USER))
        t2 = time.monotonic()
    assert t1 - t0 >= 0.6 and t2 - t1 >= 0.4
    assert model.usage.n_retries == 2


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "-5", "1e400"])
def test_unusable_retry_after_falls_back_to_the_backoff(make_model, value: str) -> None:
    """A Retry-After of NaN, infinity or a negative number is no wait the client can honour: the retry comes
    after the jittered backoff (here at most 50 ms), never after NaN seconds or a hang."""
    assert retry_after_s({"retry-after": value}) is None and retry_after_s({"retry-after-ms": value}) is None
    faults = [{"kind": "429", "at": 1, "retry_after": value}, {"kind": "503", "at": 2, "retry_after_ms": value}]
    with ScriptedModelServer(default_reply="ok", faults=faults) as srv:
        model = make_model(srv.base_url, backoff_base_s=0.05, backoff_max_s=0.05)
        t0 = time.monotonic()
        reply = run(model.complete(USER))
        took = time.monotonic() - t0
    assert reply.text == "ok" and model.usage.n_retries == 2 and srv.n_faults_injected == 2
    assert took < 5.0, took


def test_retry_after_http_date_parses() -> None:
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 28 <= retry_after_s({"retry-after": future}) <= 30.5
    assert retry_after_s({"retry-after": "2"}) == 2.0
    assert retry_after_s({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_s({}) is None and retry_after_s({"retry-after": "soon"}) is None


def test_retry_budget_bounds_total_time(make_model) -> None:
    with ScriptedModelServer(default_reply="ok", faults=[{"kind": "500"}]) as srv:
        model = make_model(srv.base_url, max_retries=1000, retry_budget_s=1.0, backoff_base_s=0.1, backoff_max_s=0.3)
        t0 = time.monotonic()
        with pytest.raises(ModelRetryableError) as info:
            run(model.complete(USER))
        elapsed = time.monotonic() - t0
    assert elapsed < 1.5 and srv.n_requests >= 3
    assert info.value.retryable and info.value.status == 500 and "retry_budget_s" in str(info.value)
    assert model.usage.n_retries == srv.n_requests - 1


def test_max_retries_bounds_the_count(make_model) -> None:
    with ScriptedModelServer(default_reply="ok", faults=[{"kind": "drop"}]) as srv:
        model = make_model(srv.base_url, max_retries=3)
        with pytest.raises(ModelError) as info:
            run(model.complete(USER))
    assert srv.n_requests == 4 and model.usage.n_retries == 3
    assert info.value.retryable and "connection error" in str(info.value) and "max_retries" in str(info.value)


def test_retry_after_past_budget_gives_up_at_once(make_model) -> None:
    with ScriptedModelServer(default_reply="ok", faults=[{"kind": "429", "at": 1, "retry_after": 30}]) as srv:
        model = make_model(srv.base_url, retry_budget_s=2.0)
        t0 = time.monotonic()
        with pytest.raises(ModelRetryableError):
            run(model.complete(USER))
    assert time.monotonic() - t0 < 1.5 and srv.n_requests == 1


def test_401_is_a_clear_model_error_and_the_client_goes_on(make_model, api_key, caplog) -> None:
    calls = []

    def reply(request: dict) -> dict:
        calls.append(1)
        if len(calls) == 1:  # a provider that echoes the key it was given
            return {"status": 401, "error": f"Incorrect API key provided: {api_key}", "code": "invalid_api_key"}
        return {"text": "fine"}

    caplog.set_level(logging.DEBUG)
    with ScriptedModelServer(replies=reply) as srv:
        model = make_model(srv.base_url)
        with pytest.raises(ModelError) as info:
            run(model.complete(USER))
        assert run(model.complete(USER)).text == "fine"
    err = info.value
    assert not err.retryable and err.status == 401 and err.error_class == "model"
    assert err.endpoint == f"{srv.base_url}/chat/completions"
    assert f"{srv.base_url}/chat/completions" in str(err) and "HTTP 401" in str(err)
    assert err.__cause__ is None and err.__suppress_context__
    for text in (str(err), repr(err), caplog.text):
        assert api_key not in text
    assert model.usage.n_retries == 0 and srv.n_requests == 2


@pytest.mark.parametrize(
    "protocol,message",
    [
        ("openai-chat", "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens."),
        ("anthropic-messages", "prompt is too long: 210000 tokens > 200000 maximum"),
        ("openai-responses", "Your input exceeds the context window of this model."),
    ],
)
def test_context_length_error(make_model, protocol: str, message: str) -> None:
    code = "context_length_exceeded" if protocol == "openai-chat" else None
    with ScriptedModelServer(replies=[{"status": 400, "error": message, "code": code}]) as srv:
        model = make_model(srv.base_url, api_protocol=protocol)
        with pytest.raises(ContextLengthExceededError) as info:
            run(model.complete(USER))
    assert info.value.status == 400 and not info.value.retryable and srv.n_requests == 1
    assert srv.base_url.rsplit("/v1", 1)[0] in info.value.endpoint


@pytest.mark.parametrize("status", [400, 403, 422])
def test_other_client_errors_are_not_retried(make_model, status: int) -> None:
    with ScriptedModelServer(replies=[{"status": status, "error": "bad request body"}]) as srv:
        model = make_model(srv.base_url)
        with pytest.raises(ModelError) as info:
            run(model.complete(USER))
    assert info.value.status == status and not info.value.retryable and srv.n_requests == 1
    assert not isinstance(info.value, ContextLengthExceededError)


def test_slow_reply_beyond_request_timeout_is_retried(make_model) -> None:
    with ScriptedModelServer(default_reply="ok", faults=[{"kind": "slow", "at": 2, "delay_s": 2.0}]) as srv:
        model = make_model(srv.base_url, request_timeout_s=0.5)
        run(model.complete(USER))  # warm up: SDK import and first connection
        t0 = time.monotonic()
        assert run(model.complete(USER)).text == "ok"
    assert model.usage.n_retries == 1 and time.monotonic() - t0 < 2.0


def test_malformed_body_is_retried(make_model) -> None:
    with ScriptedModelServer(default_reply="ok", faults=[{"kind": "malformed", "at": 1}]) as srv:
        model = make_model(srv.base_url, api_protocol="openai-responses")
        assert run(model.complete(USER)).text == "ok"
    assert model.usage.n_retries == 1 and srv.n_requests == 2


def test_exhausted_script_is_not_retried(make_model) -> None:
    with ScriptedModelServer(replies=["only one"]) as srv:
        model = make_model(srv.base_url)
        assert run(model.complete(USER)).text == "only one"
        with pytest.raises(ModelError, match="script exhausted") as info:
            run(model.complete(USER))
    assert info.value.status == 500 and not info.value.retryable and srv.n_requests == 2


def test_credentials_in_the_base_url_stay_out_of_errors(make_model) -> None:
    with ScriptedModelServer(replies=[{"status": 403, "error": "forbidden"}]) as srv:
        url = srv.base_url.replace("http://", "http://user:pw-secret@")
        model = make_model(url)
        with pytest.raises(ModelError) as info:
            run(model.complete(USER))
    assert info.value.status == 403 and "secret" not in str(info.value) and "secret" not in str(model.describe())
