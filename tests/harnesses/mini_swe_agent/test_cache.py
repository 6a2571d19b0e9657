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
