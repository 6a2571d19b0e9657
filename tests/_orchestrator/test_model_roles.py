"""Model roles: a benchmark's second model (here a judge) through ``ctx.model_role``, on the main model's endpoint
with the benchmark's default id and parameters, overridden by ``model_roles``; its calls recorded with their role in
``model_calls.jsonl``, its usage per role in result.json, the results rows and the summary. Real runs against the
scripted model server on 127.0.0.1."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agentcompass import run_evaluation
from agentcompass.errors import ConfigError, EvaluationFailedError
from agentcompass.testing.scripted_server import ScriptedModelServer


def _answer(request):
    body = request["body"]
    text = json.dumps(body["messages"])
    if text.count("judge:"):
        return {"text": "yes" if re.search(r"'(answer-\d+)' equal to '\1'", text) else "no"}
    return {"text": re.search(r"answer-\d+", text).group(0)}


def _run(tmp_path, server, **kw):
    return run_evaluation(
        benchmark="synthetic",
        harness="oracle",
        model="main-model",
        environment="memory",
        benchmark_params={"_target_": "tests._orchestrator.roles_support.JudgedBenchmark", "n_tasks": 2},
        harness_params={"_target_": "tests.helpers.ModelEchoHarness"},
        model_base_url=server.base_url,
        model_api_protocol="openai-chat",
        results_dir=tmp_path / "results",
        data_dir=tmp_path / "data",
        progress="none",
        **kw,
    )


def _calls(run_dir):
    lines = []
    for path in sorted(run_dir.glob("tasks/*/sample-*/attempt-*/model_calls.jsonl")):
        lines += [json.loads(line) for line in path.read_text().splitlines()]
    return lines


def test_a_role_runs_on_the_main_endpoint_with_the_benchmarks_default_and_is_counted_per_role(tmp_path):
    with ScriptedModelServer(_answer) as server:
        result = _run(tmp_path, server)
    assert result["metrics"]["mean_reward"] == 1.0
    sent = [(r["body"]["model"], r["body"].get("temperature")) for r in server.requests]
    assert sorted(sent) == [("judge-default", 0.0)] * 2 + [("main-model", None)] * 2
    run_dir = result["paths"]["run_dir"]
    calls = _calls(Path(run_dir))
    assert sorted(c.get("role", "main") for c in calls) == ["judge", "judge", "main", "main"]
    results = [json.loads(p.read_text()) for p in Path(run_dir).glob("tasks/*/sample-*/attempt-*/result.json")]
    assert all(r["usage_by_role"]["judge"]["calls"] == 1 for r in results)
    assert all(r["usage"]["calls"] == 1 for r in results)  # the main model's usage stays the agent's alone
    summary = json.loads(Path(result["paths"]["summary"]).read_text())
    assert summary["metrics"]["usage_by_role"]["judge"]["calls"] == 2
    assert summary["metrics"]["usage_by_role"]["judge"]["input"] > 0


def test_model_roles_override_the_benchmarks_default(tmp_path):
    with ScriptedModelServer(_answer) as server:
        result = _run(tmp_path, server, model_roles={"judge": {"id": "judge-x", "params": {"top_p": 0.5}}})
    assert result["metrics"]["mean_reward"] == 1.0
    judged = [r["body"] for r in server.requests if r["body"]["model"] != "main-model"]
    assert [(b["model"], b.get("temperature"), b.get("top_p")) for b in judged] == [("judge-x", 0.0, 0.5)] * 2


def test_a_role_without_an_endpoint_is_a_clear_per_task_error(tmp_path):
    with pytest.raises(EvaluationFailedError) as failed:
        run_evaluation(
            benchmark="synthetic",
            harness="oracle",
            model="none",
            environment="memory",
            benchmark_params={"_target_": "tests._orchestrator.roles_support.JudgedBenchmark", "n_tasks": 2},
            results_dir=tmp_path / "results",
            progress="none",
        )
    errors = [row["error"] for row in failed.value.result["summary"]["tasks"]]
    assert len(errors) == 2
    assert all("model role 'judge' is not configured" in (e or {}).get("message", "") for e in errors), errors


def test_a_harness_that_cannot_converse_is_refused_on_a_tool_use_benchmark(tmp_path):
    with pytest.raises(ConfigError, match="cannot converse"):
        run_evaluation(
            benchmark="synthetic",
            harness="oracle",
            model="m",
            model_base_url="http://127.0.0.1:9/v1",
            model_api_key="k-unused",
            environment="memory",
            benchmark_params={"_target_": "tests._orchestrator.roles_support.TalkingBenchmark"},
            harness_params={"_target_": "tests.helpers.ModelEchoHarness"},
            results_dir=tmp_path / "results",
            progress="none",
        )
