"""``tool_agent`` driven by the scripted model server through each user task's ground truth (the calls and output of
the package's ``GroundTruthPipeline``, one reply list per task keyed by the task's prompt), over HTTP with the real
OpenAI SDK: its utility equals the package's own ground-truth pipeline's, suite by suite, on every user task of the
latest version (97: 40 workspace, 20 travel, 16 banking, 21 slack)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agentdojo")

from agentcompass import run_evaluation
from agentcompass.benchmarks.agentdojo.benchmark import AgentDojoBenchmark, AgentDojoConfig
from agentcompass.testing.scripted_server import ScriptedModelServer

from .test_oracle import package_ground_truth_utility

pytestmark = pytest.mark.slow


def ground_truth_replies(bench: AgentDojoBenchmark) -> dict[str, list[dict[str, Any]]]:
    """{user task prompt: the model's replies}: the ground truth's calls in one reply, then its output."""
    out: dict[str, list[dict[str, Any]]] = {}
    for task in bench.load():
        replies: list[dict[str, Any]] = []
        for message in bench.case(task.id).ground_truth_messages():
            if message.get("tool_calls"):
                replies.append({"tool_calls": message["tool_calls"]})
            else:
                replies.append({"text": message["content"]})
        assert task.instruction not in out, f"{task.id}: its prompt is another task's"
        out[task.instruction] = replies
    return out


def test_tool_agent_utility_equals_the_package_ground_truth_pipeline_suite_by_suite(tmp_path: Path) -> None:
    bench = AgentDojoBenchmark(AgentDojoConfig(attack="none"))
    with ScriptedModelServer(tasks=ground_truth_replies(bench)) as srv:
        result = run_evaluation(
            benchmark="agentdojo",
            harness="tool_agent",
            model="agent-model",
            environment="memory",
            benchmark_params={"attack": "none"},
            model_base_url=srv.base_url,
            model_api_key="k-agentdojo",
            model_api_protocol="openai-chat",
            task_concurrency=8,
            results_dir=str(tmp_path),
            progress="none",
            log_level="WARNING",
        )
        n_requests = len(srv.requests)
    rows = [json.loads(line) for line in Path(result["paths"]["results"]).read_text().splitlines() if line.strip()]
    ours: dict[str, dict[str, bool]] = {}
    for row in rows:
        assert row["status"] == "completed", (row["task_id"], row["error"])
        suite, user = row["task_id"].split("/")
        ours.setdefault(suite, {})[user] = row["reward"] == 1.0
    reference = package_ground_truth_utility()
    assert ours == reference
    counts = {s: (sum(v.values()), len(v)) for s, v in reference.items()}
    assert sum(n for _, n in counts.values()) == 97, counts
    assert n_requests >= 97  # every task went through the model over HTTP
    print("AgentDojo ground truth through tool_agent (passed, tasks) per suite:", counts)
