"""mini_swe_agent over the response cache: the second run makes no call, scores the same and its trajectory
holds the same messages (the package's own loop, fed the recorded replies)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcompass import run_evaluation
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.harnesses.mini_swe_agent.conftest import require_reference
from tests.harnesses.mini_swe_agent.scenarios import text, tool

PRICES = "model.prices={input_per_mtok:1000.0,output_per_mtok:1000.0}"
REPLIES = [
    tool(1, "printf 'Hello, world!\\n' > hello.txt"),
    text("no action in this reply"),  # a format error: the next request carries the package's error message
    tool(3, "cat hello.txt"),
    tool(4, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
]


@pytest.fixture(autouse=True)
def _package():
    require_reference()


def _run(tmp_path: Path, srv: ScriptedModelServer, run_id: str, **kw):
    return run_evaluation(
        benchmark="demo",
        harness="mini_swe_agent",
        model="scripted-model",
        environment="local",
        benchmark_params={"sample_ids": ["hello-file"]},
        model_base_url=srv.base_url,
        model_api_protocol="openai-chat",
        overrides=[PRICES],
        results_dir=str(tmp_path / "results"),
        data_dir=str(tmp_path / "data"),
        run_name="msa",
        run_id=run_id,
        progress="none",
        **kw,
    )


def _messages(result) -> list[dict]:
    attempt = Path(result["paths"]["run_dir"]) / "tasks" / "hello-file" / "sample-1" / "attempt-1"
    traj = json.loads((attempt / "hello-file.traj.json").read_text())
    return [{k: v for k, v in m.items() if k != "extra"} for m in traj["messages"]]


def test_a_cached_mini_swe_agent_run_makes_no_call_and_repeats_the_trajectory(tmp_path):
    with ScriptedModelServer(replies=REPLIES) as srv:
        first = _run(tmp_path, srv, "a", model_cache="read_write")
        assert len(srv.requests) == 4 and first["metrics"]["mean_reward"] == 1.0
        again = _run(tmp_path, srv, "b", model_cache="read_write")
        assert len(srv.requests) == 4  # nothing reached the endpoint
    assert again["metrics"]["mean_reward"] == first["metrics"]["mean_reward"]
    assert _messages(again) == _messages(first)
    m = again["metrics"]
    assert (m["cache_hits"], m["cost_usd"], m["cost_saved_usd"]) == (4, 0.0, first["metrics"]["cost_usd"])


def test_replay_of_a_recorded_run_reproduces_it_with_the_endpoint_down_and_catches_a_changed_request_3(tmp_path):
    from agentcompass.errors import EvaluationFailedError

    with ScriptedModelServer(replies=REPLIES) as srv:
        recorded = _run(tmp_path, srv, "rec")
        dead = srv.base_url
    assert recorded["metrics"]["mean_reward"] == 1.0
    run_dir = recorded["paths"]["run_dir"]
    with ScriptedModelServer(replies=[]) as other:  # the recorded server is gone: its port refuses connections
        replayed = _run(tmp_path, _At(dead), "rep", replay=run_dir)
        assert not other.requests
    assert replayed["metrics"]["mean_reward"] == recorded["metrics"]["mean_reward"]
    assert _messages(replayed) == _messages(recorded)
    attempt = Path(replayed["paths"]["run_dir"]) / "tasks" / "hello-file" / "sample-1" / "attempt-1"
    lines = [json.loads(x) for x in (attempt / "model_calls.jsonl").read_text().splitlines()]
    assert [(x["seq"], x["cache"], x["http_status"]) for x in lines] == [(i, "replay", None) for i in (1, 2, 3, 4)]
    assert replayed["metrics"]["cache_hits"] == 4 and replayed["metrics"]["cost_usd"] == 0.0

    # a harness change that alters the third request (the package's format-error message) stops that attempt
    changed = {"model": {"format_error_template": "Wrong format: {{error}}. Use the bash tool."}}
    with pytest.raises(EvaluationFailedError):
        _run(tmp_path, _At(dead), "chg", replay=run_dir, harness_params=changed)
    result = json.loads(
        (
            tmp_path / "results" / "msa" / "chg" / "tasks" / "hello-file" / "sample-1" / "attempt-1" / "result.json"
        ).read_text()
    )
    assert result["error_type"] == "ReplayMismatchError", result["error"]
    assert "request 3 differs from the recorded one at messages[" in result["error"]
    assert "].content (recorded " in result["error"]


class _At:
    """A server that is not there (its base URL only)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
