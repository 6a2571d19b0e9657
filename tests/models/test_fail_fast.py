"""A dead model endpoint is found once per request: the circuit opens after the first N connect failures."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

from agentcompass.errors import ModelEndpointDownError, ModelRetryableError
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.run_support import run_cli

USER = [{"role": "user", "content": "hello"}]


def closed_port() -> int:
    """A local port nothing listens on (connections to it are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _complete(model, n: int = 1):
    async def go():
        try:
            return await asyncio.gather(*(model.complete(USER) for _ in range(n)), return_exceptions=True)
        finally:
            await model.aclose()

    return asyncio.run(go())


def test_refused_connections_open_the_circuit_for_every_fork(make_model):
    port = closed_port()
    model = make_model(f"http://127.0.0.1:{port}/v1", max_retries=8, backoff_base_s=0.05, fail_fast_after=3)
    forks = [model.fork() for _ in range(4)]
    late = model.fork()

    async def go():
        out = await asyncio.gather(*(f.complete(USER) for f in forks), return_exceptions=True)
        with pytest.raises(ModelEndpointDownError):  # a call after the circuit opened: refused at once
            await late.complete(USER)
        await model.aclose()
        return out

    out = asyncio.run(go())
    # only the failures before the circuit opened were retried (8 retries per fork without it: 32)
    assert sum(f.usage.n_retries for f in forks) <= 2, [f.usage.n_retries for f in forks]
    assert late.usage.n_retries == 0  # refused without a request, so without a retry
    assert all(isinstance(e, ModelEndpointDownError) for e in out), out
    message = str(out[0])
    assert f"model endpoint http://127.0.0.1:{port}/v1/chat/completions is unreachable" in message
    assert "ConnectError" in message and "fail_fast_after=3" in message and "\n" not in message
    assert out[0].stops_request and out[0].error_class == "model"


def test_a_name_that_does_not_resolve_opens_it_too(make_model):
    # .invalid never resolves (RFC 6761): a DNS failure is a failure to connect
    model = make_model("http://agentcompass-test.invalid/v1", max_retries=8, backoff_base_s=0.05, fail_fast_after=2)
    (error,) = _complete(model)
    assert isinstance(error, ModelEndpointDownError), error
    assert "model endpoint http://agentcompass-test.invalid/v1/chat/completions is unreachable" in str(error)
    assert model.usage.n_retries == 1  # the second failed request opened it: not 8 retries


def test_zero_turns_it_off(make_model):
    model = make_model(f"http://127.0.0.1:{closed_port()}/v1", max_retries=4, fail_fast_after=0)
    (error,) = _complete(model)
    assert type(error) is ModelRetryableError and "gave up after 4 retries" in str(error)


def test_an_endpoint_that_ever_answered_never_trips_it(make_model):
    server = ScriptedModelServer(replies=[{"text": "hi"}]).start()
    model = make_model(server.base_url, max_retries=5, fail_fast_after=2)

    async def go():
        first = await model.complete(USER)
        server.stop()  # now down: refused, but it was there
        second = await asyncio.gather(model.complete(USER), return_exceptions=True)
        await model.aclose()
        return first, second[0]

    first, error = asyncio.run(go())
    assert first.text == "hi" and type(error) is ModelRetryableError


def test_dropped_connections_are_an_endpoint_that_is_there(make_model):
    faults = [{"at": n, "kind": "drop"} for n in range(1, 5)]
    with ScriptedModelServer(replies=[{"text": "hi"}], faults=faults) as srv:
        model = make_model(srv.base_url, max_retries=6, fail_fast_after=2)
        (reply,) = _complete(model)
    assert reply.text == "hi"


def test_a_run_against_a_dead_endpoint_fails_at_once_with_one_line(tmp_path):
    port = closed_port()
    out = run_cli(
        "run",
        "synthetic",
        "nop",
        "dead-model",
        "--env",
        "memory",
        "--results-dir",
        str(tmp_path),
        "--run-id",
        "dead",
        "--model-base-url",
        f"http://127.0.0.1:{port}/v1",
        "--progress",
        "none",
        "--task-concurrency",
        "3",
        "harness._target_=tests.helpers.ModelEchoHarness",
        "benchmark.n_tasks=20",
        timeout=120,
    )
    assert out.returncode == 1, (out.returncode, out.stderr)
    errors = [line for line in out.stderr.splitlines() if line.startswith("agentcompass: error:")]
    assert len(errors) == 1, out.stderr
    assert f"model endpoint http://127.0.0.1:{port}/v1/chat/completions is unreachable" in errors[0]
    run_dir = tmp_path / "synthetic__nop__dead-model" / "dead"
    started = list(run_dir.glob("tasks/*/sample-1/attempt-*"))
    assert 1 <= len(started) <= 3, started  # no attempt was started once the circuit opened
    calls = [json.loads(line) for a in started for line in (a / "model_calls.jsonl").read_text().splitlines()]
    # the default fail_fast_after=3: 3 failed requests at most retried twice in all (not 20 tasks x max_retries)
    assert 1 <= len(calls) <= 3 and sum(call["retries"] for call in calls) <= 2, calls
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["metadata"]["status"] == "failed"
    assert json.loads((run_dir / "run.json").read_text())["status"] == "failed"
