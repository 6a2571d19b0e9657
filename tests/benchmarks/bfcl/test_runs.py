"""``bfcl_multi_turn`` end to end: the oracle on every base task, ``tool_agent`` driven by the scripted model server
through the ground-truth calls (the held-out functions reaching the model in their turn), the refused categories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentcompass import run_evaluation
from agentcompass.benchmarks.bfcl.benchmark import BfclMultiTurnBenchmark, BfclMultiTurnConfig
from agentcompass.errors import ConfigError
from agentcompass.testing.scripted_server import ScriptedModelServer

pytestmark = pytest.mark.slow
# tasks whose first user messages differ (the scripted model tells them apart by it)
SCRIPTED = ["multi_turn_base_0", "multi_turn_base_7", "multi_turn_miss_func_3", "multi_turn_miss_param_2"]


def rows_of(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(result["paths"]["results"]).read_text().splitlines() if line.strip()]


def test_the_oracle_scores_one_on_every_base_task(tmp_path):
    result = run_evaluation(
        benchmark="bfcl_multi_turn",
        harness="oracle",
        model="none",
        environment="memory",
        benchmark_params={"categories": ["base"]},
        results_dir=str(tmp_path),
        progress="none",
        log_level="WARNING",
    )
    rows = rows_of(result)
    assert len(rows) == 200 and all(r["resolved"] and r["reward"] == 1.0 for r in rows)
    scores = json.loads(Path(result["paths"]["bfcl_scores"]).read_text())
    assert scores["categories"] == {"base": {"accuracy": 1.0, "correct_count": 200, "total_count": 200}}
    assert (scores["overall"], scores["complete"], scores["overall_of_run"]) == (0.25, False, 1.0)


def scripted_replies(tasks: dict[str, Any]) -> Any:
    """The model's reply: the next oracle message of the task whose first user message opens the request."""
    by_opening = {}
    for task in tasks.values():
        opening = task.data["entry"]["question"][0][0]["content"]
        assert opening not in by_opening, f"{task.id} opens as another task does"
        by_opening[opening] = BfclMultiTurnBenchmark.reference_solution(None, task).messages  # type: ignore[arg-type]

    def reply(request: dict[str, Any]) -> Any:
        messages = request["body"]["messages"]
        script = by_opening[next(m["content"] for m in messages if m["role"] == "user")]
        step = script[sum(1 for m in messages if m["role"] == "assistant")]
        if step.get("tool_calls"):
            return {"tool_calls": [{k: c[k] for k in ("id", "name", "arguments")} for c in step["tool_calls"]]}
        return {"text": step["content"]}

    return reply


def users_of(entry: dict[str, Any]) -> list[str]:
    return [m["content"] for turn in entry["question"] for m in turn if m["role"] == "user"]


def replies_by_conversation(tasks: dict[str, Any]) -> Any:
    """The model's reply: the next oracle message of the task whose user messages begin with the request's (two
    base tasks open alike and share their first turn's ground truth; their later turns tell them apart)."""
    scripts = [
        (users_of(t.data["entry"]), BfclMultiTurnBenchmark.reference_solution(None, t).messages)  # type: ignore[arg-type]
        for t in tasks.values()
    ]

    def reply(request: dict[str, Any]) -> Any:
        messages = request["body"]["messages"]
        said = [m["content"] for m in messages if m["role"] == "user"]
        script = next(s for users, s in scripts if users[: len(said)] == said)
        step = script[sum(1 for m in messages if m["role"] == "assistant")]
        if step.get("tool_calls"):
            return {"tool_calls": [{k: c[k] for k in ("id", "name", "arguments")} for c in step["tool_calls"]]}
        return {"text": step["content"]}

    return reply


def test_tool_agent_through_the_ground_truth_scores_one_on_every_base_task(tmp_path):
    """Every base task's ground truth is executable (the oracle passes all 200): ``tool_agent`` driven through it
    over HTTP scores 1.0 on each."""
    tasks = {t.id: t for t in BfclMultiTurnBenchmark(BfclMultiTurnConfig(categories=["base"])).load()}
    with ScriptedModelServer(replies=replies_by_conversation(tasks)) as srv:
        result = run_evaluation(
            benchmark="bfcl_multi_turn",
            harness="tool_agent",
            model="agent-model",
            environment="memory",
            benchmark_params={"categories": ["base"]},
            model_base_url=srv.base_url,
            model_api_key="k-bfcl",
            model_api_protocol="openai-chat",
            task_concurrency=8,
            results_dir=str(tmp_path),
            progress="none",
            log_level="WARNING",
        )
    rows = rows_of(result)
    assert len(rows) == 200
    assert [r["task_id"] for r in rows if not r["resolved"]] == []
    scores = json.loads(Path(result["paths"]["bfcl_scores"]).read_text())
    assert scores["categories"] == {"base": {"accuracy": 1.0, "correct_count": 200, "total_count": 200}}


def test_tool_agent_through_the_ground_truth_scores_one(tmp_path):
    loaded = BfclMultiTurnBenchmark(BfclMultiTurnConfig(sample_ids=SCRIPTED)).load()
    tasks = {t.id: t for t in loaded}
    with ScriptedModelServer(replies=scripted_replies(tasks)) as srv:
        result = run_evaluation(
            benchmark="bfcl_multi_turn",
            harness="tool_agent",
            model="agent-model",
            environment="memory",
            benchmark_params={"sample_ids": SCRIPTED},
            model_base_url=srv.base_url,
            model_api_key="k-bfcl",
            model_api_protocol="openai-chat",
            results_dir=str(tmp_path),
            progress="none",
            log_level="WARNING",
        )
        requests = list(srv.requests)
    rows = rows_of(result)
    assert sorted(r["task_id"] for r in rows) == sorted(SCRIPTED)
    assert all(r["resolved"] for r in rows), [(r["task_id"], r["error"]) for r in rows]
    # miss_func: the held-out function is offered from its turn on, never before
    entry = tasks["multi_turn_miss_func_3"].data["entry"]
    (turn, held), *_ = entry["missed_function"].items()
    name = held[0]["name"]
    opening = entry["question"][0][0]["content"]
    mine = [r["body"] for r in requests if r["body"]["messages"][0]["content"] == opening]
    offered = [any(t["function"]["name"] == name for t in b["tools"]) for b in mine]
    users = [sum(1 for m in b["messages"] if m["role"] == "user") for b in mine]
    assert offered == [u > int(turn) for u in users] and any(offered) and not all(offered)


@pytest.mark.parametrize("category", ["web_search", "memory_kv", "multi_turn_composite", "simple_python"])
def test_other_categories_are_refused_with_the_reason(category, tmp_path):
    with pytest.raises(ConfigError) as info:
        run_evaluation(
            benchmark="bfcl_multi_turn",
            harness="oracle",
            model="none",
            environment="memory",
            benchmark_params={"categories": [category]},
            results_dir=str(tmp_path),
            progress="none",
        )
    message = str(info.value)
    assert category in message and "\n" not in message
    assert ("unknown category" in message) == (category == "simple_python")
