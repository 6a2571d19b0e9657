"""openai-responses and anthropic-messages round trips, ``auto`` and list fallback (real SDKs, loopback)."""

from __future__ import annotations

from asyncio import gather, run

import pytest

from agentcompass.errors import ModelError
from agentcompass.models._auto import auto_protocols
from agentcompass.testing.scripted_server import ScriptedModelServer

USER = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "say hello to the world"}]
CUT = {
    "text": "half a",
    "finish_reason": "length",
    "usage": {"input_tokens": 50, "output_tokens": 9, "cached_tokens": 20},
}


def _two_calls(model):
    async def go():
        out = [await model.complete(USER), await model.complete(USER, max_tokens=9, stop="END")]
        await model.aclose()
        return out

    return run(go())


def test_openai_responses_round_trip(make_model) -> None:
    with ScriptedModelServer(replies=["hi there", CUT]) as srv:
        model = make_model(srv.base_url, api_protocol="openai-responses", params={"reasoning_effort": "low"})
        first, second = _two_calls(model)
    assert (first.text, first.finish_reason, first.usage.input_tokens, first.usage.output_tokens) == (
        "hi there",
        "stop",
        8,
        2,
    )
    assert (second.text, second.finish_reason) == ("half a", "length")
    assert (second.usage.input_tokens, second.usage.output_tokens, second.usage.cached_tokens) == (50, 9, 20)
    body = srv.requests[1]["body"]
    assert srv.requests[0]["path"] == "/v1/responses"
    assert body["instructions"] == "You are terse." and body["input"] == USER[1:]
    assert body["max_output_tokens"] == 9 and body["reasoning"] == {"effort": "low"} and body["stop"] == "END"
    assert model.protocol == "openai-responses"


def test_anthropic_messages_round_trip(make_model) -> None:
    with ScriptedModelServer(replies=["hi there", CUT]) as srv:
        model = make_model(
            srv.base_url, id="claude-test", api_protocol="anthropic-messages", params={"temperature": 0.3}
        )
        first, second = _two_calls(model)
    assert (first.text, first.finish_reason, first.usage.input_tokens, first.usage.output_tokens) == (
        "hi there",
        "stop",
        8,
        2,
    )
    assert (second.text, second.finish_reason) == ("half a", "length")
    assert (second.usage.input_tokens, second.usage.output_tokens, second.usage.cached_tokens) == (50, 9, 20)
    first_body, body = srv.requests[0]["body"], srv.requests[1]["body"]
    assert srv.requests[0]["path"] == "/v1/messages"  # base URL ending in /v1 is accepted as is
    assert first_body["system"] == "You are terse." and first_body["messages"] == USER[1:]
    assert first_body["max_tokens"] == 8192 and first_body["temperature"] == 0.3
    assert body["max_tokens"] == 9 and body["stop_sequences"] == ["END"]
    headers = srv.requests[0]["headers"]
    assert headers.get("x-api-key", headers.get("authorization")) == "<redacted>"


def test_auto_rule() -> None:
    assert auto_protocols("http://127.0.0.1:8000/v1", "claude-sonnet-4")[0] == "anthropic-messages"
    assert auto_protocols("https://api.anthropic.com", "some-model")[0] == "anthropic-messages"
    assert auto_protocols("https://api.openai.com/v1", "o3-mini") == ["openai-responses", "openai-chat"]
    assert auto_protocols("https://api.openai.com/v1", "gpt-5-mini")[0] == "openai-responses"
    assert auto_protocols("https://api.openai.com/v1", "gpt-4o-mini") == ["openai-chat"]
    assert auto_protocols("http://127.0.0.1:8000/v1", "gpt-5-mini") == ["openai-chat"]
    assert auto_protocols("https://openrouter.ai/api/v1", "anthropic/claude-3.5") == ["openai-chat"]


def test_auto_picks_protocol_over_http(make_model) -> None:
    with ScriptedModelServer(default_reply="ok") as srv:
        claude = make_model(srv.base_url, id="claude-x", api_protocol="auto")
        local = make_model(srv.base_url, id="qwen3-8b", api_protocol="auto")
        run(claude.complete(USER))
        run(local.complete(USER))
    assert [r["path"] for r in srv.requests] == ["/v1/messages", "/v1/chat/completions"]


@pytest.mark.parametrize("status", [404, 405])
def test_list_falls_back_and_remembers(make_model, status: int) -> None:
    with ScriptedModelServer(default_reply="ok", unsupported_paths={"/v1/responses": status}) as srv:
        model = make_model(srv.base_url, api_protocol=["openai-responses", "openai-chat"])

        async def go():
            texts = [(await model.complete(USER)).text]
            fork = model.fork()
            texts += [r.text for r in await gather(*(fork.complete(USER) for _ in range(5)))]
            return texts, fork

        texts, fork = run(go())
    paths = [r["path"] for r in srv.requests]
    assert texts == ["ok"] * 6
    assert paths.count("/v1/responses") == 1 and paths.count("/v1/chat/completions") == 6
    assert model.protocol == fork.protocol == "openai-chat"
    assert fork.usage.n_calls == 5 and model.usage.n_calls == 1 and model.total_usage.n_calls == 6


def test_auto_claude_falls_back_to_chat(make_model) -> None:
    with ScriptedModelServer(default_reply="ok", unsupported_paths=["/v1/messages"]) as srv:
        model = make_model(srv.base_url, id="claude-x", api_protocol="auto")
        assert run(model.complete(USER)).text == "ok"
    assert model.protocol == "openai-chat"


def test_unsupported_everywhere_is_a_model_error(make_model) -> None:
    paths = {"/v1/responses": 404, "/v1/chat/completions": 404}
    with ScriptedModelServer(default_reply="ok", unsupported_paths=paths) as srv:
        single = make_model(srv.base_url, api_protocol="openai-responses")
        both = make_model(srv.base_url, api_protocol=["openai-responses", "openai-chat"])
        with pytest.raises(ModelError) as one:
            run(single.complete(USER))
        with pytest.raises(ModelError) as two:
            run(both.complete(USER))
    assert one.value.status == 404 and f"{srv.base_url}/responses" in str(one.value) and "404" in str(one.value)
    assert not one.value.retryable
    assert "/responses" in str(two.value) and "/chat/completions" in str(two.value)
