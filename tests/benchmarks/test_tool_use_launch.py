"""One ``launch`` of three tool-use requests on one model through the scripted model server: τ²-bench airline,
BFCL multi-turn base and AgentDojo workspace (under the package's default attack). ``tool_agent`` answers every
turn in text, the τ²-bench user (the ``user`` model role) asks once, then stops. Every request completes, with the
model's usage, the user role's usage where the benchmark has one, and the intervals in its summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcompass import OrchestrationDefaults, OrchestrationSpec, RunRequestSpec, launch
from agentcompass.testing.scripted_server import ScriptedModelServer

pytestmark = pytest.mark.slow
USAGE = {"input_tokens": 40, "output_tokens": 6}


def _reply(request):
    body = request["body"]
    if body["model"] == "user-model":  # the user simulator's own turns are its "assistant" messages
        said = sum(1 for m in body["messages"] if m["role"] == "assistant")
        return {"text": "I need help with my booking." if said == 0 else "That is all. ###STOP###", "usage": USAGE}
    return {"text": "Done.", "usage": USAGE}


def test_three_tool_use_benchmarks_in_one_launch(tmp_path: Path, tau2_root: Path) -> None:
    pytest.importorskip("bfcl_eval")
    pytest.importorskip("agentdojo")
    with ScriptedModelServer(replies=_reply) as srv:
        spec = OrchestrationSpec(
            name="tool-use",
            task_concurrency=4,
            defaults=OrchestrationDefaults(
                harness={"id": "tool_agent"},
                model={
                    "id": "agent-model",
                    "base_url": srv.base_url,
                    "api_key": "k-launch",
                    "api_protocol": "openai-chat",
                },
                environment={"id": "memory"},
                model_roles={"user": {"id": "user-model"}},
            ),
            requests=[
                RunRequestSpec(
                    name="tau2",
                    benchmark={"id": "tau2_airline", "dataset_path": str(tau2_root), "sample_ids": ["1", "3"]},
                ),
                RunRequestSpec(
                    name="bfcl",
                    benchmark={"id": "bfcl_multi_turn", "categories": ["base"], "limit": 2},
                ),
                RunRequestSpec(
                    name="agentdojo",
                    benchmark={"id": "agentdojo", "suites": ["workspace"], "limit": 2},
                ),
            ],
        )
        result = launch(spec, results_dir=str(tmp_path / "results"), progress="none")
    assert result.status == "completed", {n: (r.status, r.error) for n, r in result.requests.items()}
    for name, outcome in result.requests.items():
        summary = json.loads(Path(outcome.paths["summary"]).read_text())
        metrics = summary["metrics"]
        assert metrics["n_samples"] == 2 and metrics["n_errors"] == 0, (name, metrics)
        assert metrics["tokens"]["input"] > 0 and "mean_reward_ci" in metrics, (name, metrics)
        roles = metrics.get("usage_by_role", {})
        if name == "tau2":
            assert roles["user"]["calls"] == 4 and roles["user"]["input"] > 0, roles  # two turns a task
        else:
            assert roles == {}, (name, roles)  # their users are scripted turns, not a model
        if name == "agentdojo":  # AgentDojo's own figures, each with its interval
            figures = metrics["benchmark_figures"]["workspace"]
            assert figures["utility"]["n"] + figures["utility_under_attack"]["n"] == 2, figures
            assert all("low" in f["ci"] and "method" in f["ci"] for f in figures.values()), figures
