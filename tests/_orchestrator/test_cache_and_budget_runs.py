"""Whole runs with the response cache, run-wide budgets and prices from the price table, against the scripted
model server (a real HTTP server; its request log says what reached the endpoint)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agentcompass import run_evaluation
from agentcompass._cli.main import main
from agentcompass.errors import BudgetExhaustedError, ConfigError
from agentcompass.testing.scripted_server import ScriptedModelServer

CENT = ["model.prices={input_per_mtok: 10, output_per_mtok: 0}"]  # 1000 prompt tokens: $0.01 a call


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """The synthetic task's answer (reward 1), 1000 prompt tokens and none out."""
    found = re.search(r"answer-\d+", json.dumps(request["body"]["messages"]))
    return {"text": found.group(0), "usage": {"input_tokens": 1000, "output_tokens": 0}}


@pytest.fixture
def server():
    with ScriptedModelServer(answer) as srv:
        yield srv


def _kw(tmp: Path, server: ScriptedModelServer, **over: Any) -> dict[str, Any]:
    kw: dict[str, Any] = dict(
        benchmark="synthetic",
        harness="oracle",
        model="kw-model",
        environment="memory",
        harness_params={"_target_": "tests.helpers.ModelEchoHarness"},
        benchmark_params={"n_tasks": 4},
        model_base_url=server.base_url,
        model_api_protocol="openai-chat",
        results_dir=tmp / "out",
        data_dir=tmp / "data",
        run_name="c",
        progress="none",
        overrides=CENT,
    )
    kw.update(over)
    return kw


def _rewards(result: dict[str, Any]) -> list[tuple[str, int, float]]:
    return [(t["task_id"], s["sample"], s["reward"]) for t in result["summary"]["tasks"] for s in t["samples"]]


def test_a_cached_rerun_makes_no_call_and_scores_the_same(tmp_path, server):
    first = run_evaluation(**_kw(tmp_path, server, model_cache="read_write", run_id="a"))
    assert len(server.requests) == 4 and first["metrics"]["mean_reward"] == 1.0
    assert (first["metrics"]["cache_hits"], first["metrics"]["cost_usd"]) == (0, 0.04)
    again = run_evaluation(**_kw(tmp_path, server, model_cache="read_write", run_id="b"))
    assert len(server.requests) == 4  # the second run made 0 calls to the endpoint
    assert _rewards(again) == _rewards(first)
    m = again["metrics"]
    assert (m["cache_hits"], m["cost_usd"], m["cost_saved_usd"], m["tokens"]["input"]) == (4, 0.0, 0.04, 0)
    row = again["summary"]["tasks"][0]
    assert (row["cache_hits"], row["cost_saved_usd"]) == (1, 0.01)
    off = run_evaluation(**_kw(tmp_path, server, run_id="c"))  # cache off (the default): the endpoint again
    assert len(server.requests) == 8 and off["metrics"]["cache_hits"] == 0


def test_three_samples_are_three_cache_entries_and_read_only_stores_nothing(tmp_path, server, capsys):
    run_evaluation(**_kw(tmp_path, server, model_cache="read_only", run_id="ro"))
    assert len(server.requests) == 4
    assert main(["cache", "stats", "--data-dir", str(tmp_path / "data"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["entries"] == 0
    run_evaluation(**_kw(tmp_path, server, model_cache="read_write", n_attempts=3, run_id="k1"))
    assert len(server.requests) == 4 + 12
    assert main(["cache", "stats", "--data-dir", str(tmp_path / "data"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["entries"] == 12  # 4 tasks x 3 samples, each its own entry
    again = run_evaluation(**_kw(tmp_path, server, model_cache="read_write", n_attempts=3, run_id="k2"))
    assert len(server.requests) == 16 and again["metrics"]["cache_hits"] == 12


def _started(run_dir: Path) -> list[Path]:
    return sorted(run_dir.glob("tasks/*/sample-*/attempt-*"))


def test_a_budget_of_5_cents_at_1_cent_an_attempt_starts_5_of_20_and_reuse_runs_exactly_the_rest(
    tmp_path, server, capsys
):
    base = ["run", "synthetic", "oracle", "kw-model", "--env", "memory", "--model-base-url", server.base_url]
    base += ["--model-api-protocol", "openai-chat", "--results-dir", str(tmp_path / "out"), "--run-name", "b"]
    base += ["--progress", "none", "--task-concurrency", "1", "harness._target_=tests.helpers.ModelEchoHarness"]
    base += ["benchmark.n_tasks=20", *CENT]
    code = main([*base, "--run-id", "r", "--cost-limit-usd", "0.05"])
    err = capsys.readouterr().err
    run_dir = tmp_path / "out" / "b" / "r"
    assert code == 3, err
    assert "stopped_budget: request cost_limit_usd=0.05 reached ($0.0500 spent)" in err
    assert len(_started(run_dir)) == 5 and len(server.requests) == 5  # none started after the 5th
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["metadata"]["status"] == "stopped_budget"
    assert json.loads((run_dir / "run.json").read_text())["status"] == "stopped_budget"
    budget = summary["metadata"]["budget"][0]
    assert (budget["spent_cost_usd"], budget["not_started"], budget["reached"]) == (0.05, 15, True)
    assert summary["metrics"]["n_samples"] == 5

    code = main([*base, "--reuse", "r", "--cost-limit-usd", "0.05"])  # the same budget: spent already
    assert code == 3 and len(server.requests) == 5, capsys.readouterr().err
    code = main([*base, "--reuse", "r", "--cost-limit-usd", "0.5"])
    assert code == 0, capsys.readouterr().err
    assert len(server.requests) == 20 and len(_started(run_dir)) == 20  # exactly the 15 others ran, once each
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["metadata"]["status"] == "completed" and summary["metrics"]["mean_reward"] == 1.0
    assert summary["metadata"]["budget"][0]["spent_cost_usd"] == 0.2


def test_with_attempts_in_flight_no_attempt_starts_once_the_budget_is_reached(tmp_path, server):
    kw = _kw(tmp_path, server, benchmark_params={"n_tasks": 20}, task_concurrency=4, cost_limit_usd=0.05, run_id="p")
    with pytest.raises(BudgetExhaustedError) as caught:
        run_evaluation(**kw)
    result = caught.value.result
    started = len(_started(Path(result["paths"]["run_dir"])))
    budget = result["metadata"]["budget"][0]
    # the 5th cent is spent with at most 3 other attempts in flight; those finish (policy finish)
    assert 5 <= started <= 8 and started == len(server.requests) and budget["not_started"] == 20 - started
    assert result["metrics"]["n_samples"] == started


def test_a_model_in_the_price_table_costs_without_prices_and_an_unknown_one_is_null(tmp_path, server, capsys):
    from agentcompass.models._prices import load_table

    table = load_table()
    entry = table.entries["gpt-4o-mini"]
    known = run_evaluation(**_kw(tmp_path, server, model="gpt-4o-mini", overrides=[], run_id="k"))
    assert known["metrics"]["cost_usd"] == round(4 * 1000 * entry["input_cost_per_token"], 6) > 0
    source = known["metadata"]["prices"]["gpt-4o-mini"]
    assert (source["source"], source["key"], source["litellm_version"]) == ("litellm", "gpt-4o-mini", table.version)
    assert source["table_sha256"] == table.sha256

    code = main(
        [
            "run",
            "synthetic",
            "oracle",
            "kw-unknown-model",
            "--env",
            "memory",
            "--model-base-url",
            server.base_url,
            "--model-api-protocol",
            "openai-chat",
            "--results-dir",
            str(tmp_path / "out"),
            "--run-id",
            "u",
            "--progress",
            "none",
            "harness._target_=tests.helpers.ModelEchoHarness",
            "benchmark.n_tasks=2",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "cost_usd=unknown" in out  # the table the CLI prints
    run_dir = tmp_path / "out" / "synthetic__oracle__kw-unknown-model" / "u"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["metrics"]["cost_usd"] is None and summary["metrics"]["tokens"]["input"] == 2000
    assert [t["cost_usd"] for t in summary["summary"]["tasks"]] == [None, None]
    assert summary["metadata"]["prices"]["kw-unknown-model"]["source"] is None
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert [r["cost_usd"] for r in rows] == [None, None]


def test_a_cost_limit_with_an_unknown_price_is_a_config_error_before_anything_runs(tmp_path, server):
    with pytest.raises(ConfigError, match="cost_limit_usd=1.0 cannot be enforced: the price of model 'kw-model'"):
        run_evaluation(**_kw(tmp_path, server, overrides=[], cost_limit_usd=1.0))
    assert not server.requests and not (tmp_path / "out").exists()
