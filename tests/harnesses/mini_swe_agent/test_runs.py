"""Whole runs of mini_swe_agent through run_evaluation (demo tasks, local environment, scripted model over HTTP):
grading, usage and cost in the metrics, the trajectory in the attempt directory, the agent timeout, no key on disk."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from agentcompass import run_evaluation
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.harnesses.mini_swe_agent.conftest import require_reference
from tests.harnesses.mini_swe_agent.scenarios import tool

KEY = "sk-MSA-run-secret-0042"
PRICES = "model.prices={input_per_mtok:1000.0,output_per_mtok:1000.0}"


@pytest.fixture(autouse=True)
def _package():
    require_reference()


def _run(tmp_path: Path, replies, **kw):
    with ScriptedModelServer(replies=replies) as srv:
        result = run_evaluation(
            benchmark="demo",
            harness="mini_swe_agent",
            model="scripted-model",
            environment="local",
            benchmark_params={"sample_ids": ["hello-file"]},
            model_base_url=srv.base_url,
            model_api_key=KEY,
            model_api_protocol="openai-chat",
            overrides=[PRICES],
            results_dir=str(tmp_path / "results"),
            data_dir=str(tmp_path / "data"),
            progress="none",
            **kw,
        )
        return result, list(srv.requests)


def test_a_demo_task_solved_through_the_orchestrator(tmp_path) -> None:
    replies = [
        tool(1, "printf 'Hello, world!\\n' > hello.txt && cat hello.txt"),
        tool(2, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
    ]
    result, requests = _run(tmp_path, replies)
    m = result["metrics"]
    assert (m["n_tasks"], m["n_errors"], m["mean_reward"]) == (1, 0, 1.0)
    assert m["tokens"]["input"] > 0 and m["cost_usd"] > 0 and len(requests) == 2
    assert requests[0]["body"]["tools"][0]["function"]["name"] == "bash"
    attempt = Path(result["paths"]["run_dir"]) / "tasks" / "hello-file" / "sample-1" / "attempt-1"
    traj = json.loads((attempt / "hello-file.traj.json").read_text())
    assert traj["info"]["exit_status"] == "Submitted" and traj["info"]["config"]["environment"]["cwd"] == "/app"
    assert traj["info"]["model_stats"]["instance_cost"] == pytest.approx(m["cost_usd"])
    agent = json.loads((attempt / "result.json").read_text())["agent"]
    assert (agent["exit_status"], agent["n_turns"], agent["info"]["mini_version"]) == ("submitted", 2, "2.4.6")
    files = [p for p in Path(tmp_path).rglob("*") if p.is_file()]
    assert not [p for p in files if KEY in p.read_text(errors="replace")]


def test_the_agent_timeout_cancels_the_loop_and_the_attempt_is_still_graded(tmp_path) -> None:
    start = time.monotonic()
    result, requests = _run(tmp_path, [tool(1, "sleep 60")], execution_params={"timeouts": {"agent": 2}})
    assert time.monotonic() - start < 30 and len(requests) == 1
    m = result["metrics"]
    assert (m["n_errors"], m["mean_reward"]) == (0, 0.0)
    attempt = Path(result["paths"]["run_dir"]) / "tasks" / "hello-file" / "sample-1" / "attempt-1"
    assert json.loads((attempt / "result.json").read_text())["agent"]["exit_status"] == "agent_timeout"
    traj = json.loads((attempt / "hello-file.traj.json").read_text())
    assert traj["info"]["exit_status"] == "Cancelled" and traj["messages"][-1]["role"] == "exit"


def test_attempts_run_side_by_side_on_one_loop(tmp_path) -> None:
    """Each attempt's synchronous loop has its own thread; their model calls overlap on the one event loop."""

    def reply(request):
        return {**tool(1, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"), "delay_s": 0.5}

    with ScriptedModelServer(replies=reply) as srv:
        result = run_evaluation(
            benchmark="demo",
            harness="mini_swe_agent",
            model="scripted-model",
            environment="local",
            model_base_url=srv.base_url,
            model_api_key=KEY,
            model_api_protocol="openai-chat",
            task_concurrency=7,
            results_dir=str(tmp_path / "results"),
            data_dir=str(tmp_path / "data"),
            progress="none",
        )
        overlap = srv.max_concurrency
    m = result["metrics"]
    assert (m["n_tasks"], m["n_errors"], m["n_tries"]) == (7, 0, 7)
    assert overlap >= 4
