"""``--replay`` for agents behind the model gateway: the official openai and anthropic SDKs call the gateway; a
recorded attempt's calls (plain, streamed, translated) are answered again with the endpoint down, in another
order and another delivery (a recorded plain reply streamed); a call the recording does not have is an error in
the agent's API naming the first difference, and it ends the attempt (``session.fatal``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from agentcompass.errors import ReplayMismatchError
from agentcompass.gateway.service import Gateway
from agentcompass.interfaces import ComponentContext
from agentcompass.models.client import Model
from agentcompass.models.config import ModelConfig
from agentcompass.testing.scripted_server import ScriptedModelServer

PRICES = {"input_per_mtok": 1.0, "output_per_mtok": 1.0}
ATTEMPT = Path("tasks") / "t1" / "sample-1" / "attempt-1"


def _calls(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (path / "model_calls.jsonl").read_text().splitlines()]


async def _chat(gateway: Gateway, token: str, text: str, stream: bool) -> str:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=gateway.base_url + "/v1", api_key=token, max_retries=0)
    try:
        messages: Any = [{"role": "user", "content": text}]
        if not stream:
            reply = await client.chat.completions.create(model="any", messages=messages)
            return reply.choices[0].message.content or ""
        chunks = await client.chat.completions.create(model="any", messages=messages, stream=True)
        return "".join([c.choices[0].delta.content or "" async for c in chunks if c.choices])
    finally:
        await client.close()


async def _messages(gateway: Gateway, token: str, text: str, stream: bool) -> str:
    from anthropic import AsyncAnthropic

    client = AsyncAnthropic(base_url=gateway.base_url, api_key=token, max_retries=0)
    try:
        messages: Any = [{"role": "user", "content": text}]
        if not stream:
            reply = await client.messages.create(model="any", max_tokens=64, messages=messages)
            return "".join(b.text for b in reply.content if b.type == "text")
        async with client.messages.stream(model="any", max_tokens=64, messages=messages) as events:
            return "".join([t async for t in events.text_stream])
    finally:
        await client.close()


async def _attempt(config: ModelConfig, where: Path, calls: list[tuple[Any, str, bool]]) -> tuple[list[Any], Any]:
    """One attempt of task t1 sample 1 whose agent makes ``calls`` through the gateway; its answers (the text, or
    the error's type and message) and its session."""
    root = Model(config, ComponentContext(data_dir=where.parent / "data"))
    gateway = await Gateway().start()
    try:
        model = root.fork(SimpleNamespace(attempt_dir=where, task=SimpleNamespace(id="t1"), sample=1))
        session = gateway.open_session(model, "t")
        out: list[Any] = []
        for ask, text, stream in calls:
            try:
                out.append(await ask(gateway, session.token, text, stream))
            except Exception as exc:
                out.append((type(exc).__name__, str(exc)))
        out.append(model.usage)
        return out, session
    finally:
        await gateway.aclose()
        await root.aclose()


def test_an_agents_recorded_calls_are_replayed_with_the_endpoint_down(tmp_path: Path) -> None:
    run = tmp_path / "recorded"
    (run / ATTEMPT).mkdir(parents=True)
    row = {"task_id": "t1", "sample": 1, "attempt_dir": str(ATTEMPT)}
    (run / "results.jsonl").write_text(json.dumps(row) + "\n")
    recording = [(_chat, "say hi", False), (_chat, "say bye", True), (_messages, "translate me", False)]
    with ScriptedModelServer(replies=["hello there", "goodbye", "translated"]) as server:
        config = ModelConfig(
            id="served-model",
            base_url=server.base_url,
            api_key="sk-real-key-123456789",
            api_protocol="openai-chat",
            prices=PRICES,
        )
        recorded, _ = asyncio.run(_attempt(config, run / ATTEMPT, recording))
        assert len(server.requests) == 3
    assert recorded[:3] == ["hello there", "goodbye", "translated"]

    # the same endpoint, stopped: nothing listens there any more
    replay = ModelConfig(
        id="served-model", base_url=server.base_url, api_protocol="openai-chat", prices=PRICES, replay=str(run)
    )
    again = [(_messages, "translate me", True), (_chat, "say bye", False), (_chat, "say hi", True)]
    replayed, session = asyncio.run(_attempt(replay, tmp_path / "replayed", [*again, (_chat, "say hi", False)]))
    # the same answers in another order and delivery, none from the (down) endpoint
    assert replayed[:3] == ["translated", "goodbye", "hello there"]
    kind, message = replayed[3]
    assert kind == "BadRequestError" and "gateway request 4 was not made by the recorded run (3 gateway" in message
    assert isinstance(session.fatal, ReplayMismatchError)  # the attempt ends with it
    usage = replayed[4]
    assert (usage.n_calls, usage.cache_hits, usage.cost_usd) == (0, 3, 0.0)
    assert usage.cost_saved_usd == recorded[3].cost_usd > 0  # the recorded usage, priced
    lines = _calls(tmp_path / "replayed")
    assert [c["cache"] for c in lines] == ["replay"] * 4 and [c["status"] for c in lines] == ["ok"] * 3 + ["error"]
    assert all(c["http_status"] is None for c in lines)
    assert lines[0]["stream"] == {"agent": True, "upstream": False}  # a recorded plain reply, streamed
    assert (lines[0]["agent_protocol"], lines[0]["upstream_protocol"]) == ("anthropic-messages", "openai-chat")


def test_a_request_the_recording_does_not_have_is_an_error_in_the_agents_api(tmp_path: Path) -> None:
    run = tmp_path / "recorded"
    (run / ATTEMPT).mkdir(parents=True)
    (run / "results.jsonl").write_text(json.dumps({"task_id": "t1", "sample": 1, "attempt_dir": str(ATTEMPT)}))
    with ScriptedModelServer(replies=["one", "two"]) as server:
        config = ModelConfig(id="m", base_url=server.base_url, api_key="sk-k-123456789", api_protocol="openai-chat")
        asyncio.run(_attempt(config, run / ATTEMPT, [(_chat, "say hi", False), (_messages, "hello", False)]))
    replay = ModelConfig(id="m", base_url=server.base_url, api_protocol="openai-chat", replay=str(run))
    answers, session = asyncio.run(
        _attempt(replay, tmp_path / "r", [(_chat, "say hey", False), (_messages, "hello!", True)])
    )
    kind, message = answers[0]
    assert kind == "BadRequestError" and "gateway request 1 matches no recorded call" in message
    assert 'at body.messages[0].content (recorded "say hi", now "say hey")' in message
    kind, message = answers[1]  # the anthropic SDK reads the error in its API's shape
    assert kind == "BadRequestError" and "gateway request 2 matches no recorded call" in message
    assert 'body.messages[0].content (recorded "hello", now "hello!")' in message
    assert isinstance(session.fatal, ReplayMismatchError) and "gateway request 1" in str(session.fatal)


def test_a_run_of_an_agent_program_behind_the_gateway_replays_its_rewards(tmp_path: Path) -> None:
    """A program in the environment that calls the gateway (streamed chat), as an agent CLI does: its run replayed
    with the endpoint down gives the same rewards, every call answered from the recording."""
    from agentcompass import run_evaluation

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        n = json.dumps(request["body"]).split("answer-")[1].split(".")[0].split('"')[0]
        return {"text": f"answer-{n}", "usage": {"input_tokens": 1000, "output_tokens": 0}}

    def run(srv: ScriptedModelServer, run_id: str, **kw: Any) -> dict[str, Any]:
        return run_evaluation(
            benchmark="synthetic",
            harness="nop",
            environment="local",
            model="gw-model",
            overrides=["harness._target_=tests.helpers.GatewayEchoHarness", "model.prices={input_per_mtok: 10}"],
            benchmark_params={"n_tasks": 3},
            model_base_url=srv.base_url,
            model_api_protocol="openai-chat",
            environment_params={"root_dir": str(tmp_path / "ws")},
            results_dir=str(tmp_path / "results"),
            run_name="g",
            run_id=run_id,
            progress="none",
            **kw,
        )

    with ScriptedModelServer(replies=answer) as srv:
        recorded = run(srv, "rec", model_api_key="sk-gw-replay-123456789")
    assert recorded["metrics"]["mean_reward"] == 1.0 and len(srv.requests) == 3
    replayed = run(srv, "rep", replay=recorded["paths"]["run_dir"])  # the endpoint is down, no key
    assert len(srv.requests) == 3 and replayed["metrics"]["n_errors"] == 0
    rewards = [{(t["task_id"], t["mean_reward"]) for t in r["summary"]["tasks"]} for r in (recorded, replayed)]
    assert rewards[0] == rewards[1] and replayed["metrics"]["mean_reward"] == 1.0
    assert (replayed["metrics"]["cache_hits"], replayed["metrics"]["cost_usd"]) == (3, 0.0)
    lines = [json.loads(p.read_text()) for p in Path(replayed["paths"]["run_dir"]).rglob("model_calls.jsonl")]
    assert [(c["source"], c["cache"], c["stream"]["agent"]) for c in lines] == [("gateway", "replay", True)] * 3
