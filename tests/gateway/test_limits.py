"""Per-attempt limits (``execution.attempt_max_model_calls``, ``attempt_max_tokens_total``): the call past a limit
is refused before anything is sent, the agent gets an API error in its own API's shape, the record says
``limit``, and the attempt ends ``limits_exceeded`` naming the limit and is still verified; harnesses calling
``complete`` are held to the same limits."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from agentcompass import run_evaluation
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.gateway.agents import AGENTS
from tests.gateway.support import rig

ANSWER = {"text": "ok", "usage": {"input_tokens": 30, "output_tokens": 5}}


@pytest.mark.parametrize("agent_protocol", sorted(AGENTS))
def test_the_call_past_the_limit_is_an_api_error_in_the_agents_shape(agent_protocol: str, tmp_path: Path) -> None:
    async def go():
        with ScriptedModelServer(default_reply=ANSWER) as srv:
            async with rig(srv, agent_protocol, tmp_path) as r:
                r.model.set_attempt_limits(2, None)
                agent = AGENTS[agent_protocol](r.base_url, r.token)
                got = [await agent.call(stream=False) for _ in range(2)]
                with pytest.raises(Exception) as info:
                    await agent.call(stream=True)
                await agent.aclose()
                return got, info.value, srv.n_requests, r.session.limit_hit, r.calls()

    got, error, sent, hit, lines = asyncio.run(go())
    assert len(got) == 2 and sent == 2  # the third call never reached the endpoint
    assert error.status_code == 400 and "attempt_max_model_calls=2" in str(error)
    assert hit == "max_model_calls"
    assert [x["status"] for x in lines] == ["ok", "ok", "limit"]
    assert lines[2]["error"]["type"] == "AttemptLimitReached" and lines[2]["usage"]["input"] == 0


def test_the_token_limit_counts_input_and_output(tmp_path: Path) -> None:
    async def go():
        with ScriptedModelServer(default_reply=ANSWER) as srv:
            async with rig(srv, "openai-chat", tmp_path) as r:
                r.model.set_attempt_limits(None, 70)  # 35 tokens a call: the third call is refused
                agent = AGENTS["anthropic-messages"](r.base_url, r.token)  # translated calls count the same
                ok = [await agent.call(stream=True) for _ in range(2)]
                with pytest.raises(Exception) as info:
                    await agent.call(stream=False)
                await agent.aclose()
                return ok, info.value, r.session.limit_hit

    ok, error, hit = asyncio.run(go())
    assert len(ok) == 2 and hit == "max_tokens_total"
    assert error.status_code == 400 and "spent 70 tokens" in str(error)
    assert error.body["type"] == "error"  # Anthropic's error shape


def _answer(request):
    n = re.search(r"answer-(\d+)", json.dumps(request["body"])).group(1)
    return {"text": f"answer-{n}", "usage": {"input_tokens": 10, "output_tokens": 3}}


@pytest.mark.parametrize("way", ["gateway", "complete"])
def test_an_attempt_stopped_by_a_limit_is_verified_and_names_it(way: str, tmp_path: Path) -> None:
    with ScriptedModelServer(replies=_answer) as srv:
        result = run_evaluation(
            benchmark="synthetic",
            harness="nop",
            environment="local",
            model="gw-model",
            overrides=["harness._target_=tests.helpers.LoopHarness", f"+harness.way={way}", "+harness.n_calls=4"],
            benchmark_params={"n_tasks": 2},
            model_base_url=srv.base_url,
            model_api_key="sk-limit-test-123456",
            model_api_protocol="openai-chat",
            environment_params={"root_dir": str(tmp_path / "ws")},
            results_dir=str(tmp_path / "results"),
            progress="none",
            execution_params={"attempt_max_model_calls": 2},
        )
        sent = srv.n_requests
    assert result["metrics"]["n_errors"] == 0 and result["metrics"]["n_completed"] == 2  # verified as usual
    # the gateway agent saw an API error and submitted its last answer; the harness whose complete() raised
    # submitted nothing
    assert result["metrics"]["mean_reward"] == (1.0 if way == "gateway" else 0.0)
    assert sent == 4  # two calls per attempt reached the endpoint
    for path in (tmp_path / "results").rglob("result.json"):
        attempt = json.loads(path.read_text())
        assert (
            attempt["agent"]["exit_status"] == "limits_exceeded" and attempt["agent"]["limit_hit"] == "max_model_calls"
        )
        assert attempt["usage"]["calls"] == 2
        lines = [json.loads(x) for x in (path.parent / "model_calls.jsonl").read_text().splitlines()]
        assert [x["status"] for x in lines] == ["ok", "ok", "limit"]
