"""openai-chat through the real ``openai`` SDK over loopback HTTP."""

from __future__ import annotations

from asyncio import run

from agentcompass.interfaces import ModelClient
from agentcompass.testing.scripted_server import ScriptedModelServer

USER = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "say hello to the world"}]


def test_round_trip_text_finish_usage_and_params(make_model) -> None:
    replies = [
        "hello world",
        {
            "text": "cut off",
            "finish_reason": "length",
            "usage": {"input_tokens": 120, "output_tokens": 30, "cached_tokens": 100},
        },
    ]
    with ScriptedModelServer(replies=replies) as srv:
        model = make_model(srv.base_url, params={"temperature": 0.2, "max_tokens": 64, "top_k": 5})
        assert isinstance(model, ModelClient)

        async def go():
            first = await model.complete(USER)
            second = await model.complete(USER, temperature=0.7, stop=["END"])
            await model.aclose()
            return first, second

        first, second = run(go())
    assert (first.text, first.finish_reason) == ("hello world", "stop")
    assert (first.usage.input_tokens, first.usage.output_tokens, first.usage.n_calls) == (8, 2, 1)
    assert (second.text, second.finish_reason) == ("cut off", "length")
    assert (second.usage.input_tokens, second.usage.output_tokens, second.usage.cached_tokens) == (120, 30, 100)
    assert (model.usage.input_tokens, model.usage.output_tokens, model.usage.n_calls) == (128, 32, 2)
    body0, body1 = srv.requests[0]["body"], srv.requests[1]["body"]
    assert body0["model"] == "test-model" and body0["messages"] == USER
    assert body0["temperature"] == 0.2 and body0["max_tokens"] == 64 and body0["top_k"] == 5
    assert body1["temperature"] == 0.7 and body1["stop"] == ["END"]
    assert srv.requests[0]["path"] == "/v1/chat/completions"
