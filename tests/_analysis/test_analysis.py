"""Post-run analysis: outcome counts of a run with mixed outcomes, distributions, grouped errors, the judge
against the scripted model server (labels, cost), ``agentcompass analyze RUN_DIR``, parameter validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcompass._analysis import TAXONOMY
from agentcompass._analysis.stats import normalize_message
from agentcompass._cli.main import main
from agentcompass.errors import ConfigError
from tests._analysis.support import JUDGE_KEY, judge_model, run_mixed


def _load(run_dir) -> dict:
    return json.loads((Path(run_dir) / "analysis.json").read_text())


def test_analysis_of_a_run_with_mixed_outcomes_gives_the_right_counts(results_dir):
    result = run_mixed(results_dir, enable_analysis=True, analysis_params={"top_n": 3})
    run_dir = Path(result["paths"]["run_dir"])
    assert result["paths"]["analysis"] == str(run_dir / "analysis.json")
    assert result["paths"]["analysis_md"] == str(run_dir / "analysis.md")
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["paths"]["analysis"] == result["paths"]["analysis"]
    assert summary["metrics"]["analysis_cost_usd"] == 0.0 == result["metrics"]["analysis_cost_usd"]

    a = _load(run_dir)
    b = a["breakdown"]
    assert b["n_tasks"] == 10 and b["n_tries"] == 12 and b["tasks_retried"] == 2
    assert b["outcomes"] == {
        "resolved": 3,
        "unresolved": 3,
        "verifier_error": 1,
        "infra_error": 1,
        "model_error": 1,
        "agent_error": 1,
        "config_error": 0,
    }
    assert b["attempt_outcomes"]["infra_error"] == 3 and b["attempt_outcomes"]["resolved"] == 3
    assert b["errors_by_class"] == {
        "agent": {"AgentError": 1},
        "infra": {"SandboxError": 1},
        "model": {"ModelError": 1},
        "verifier": {"VerifierError": 1},
    }
    assert b["limits_hit"] == {"agent_timeout": 1, "step_limit": 1} and b["agent_timeouts"] == 1
    assert b["format_errors"] == {"tasks": 1, "total": 3}
    # the retried sandbox failures of two tasks group into one message, ids normalised away
    top = a["error_groups"][0]
    assert top["count"] == 3 and top["n_tasks"] == 2 and top["tasks"] == ["syn-2", "syn-9"]
    assert top["pattern"] == "SandboxError: container vanished: id <id>" and top["error_class"] == "infra"
    assert len(a["error_groups"]) == 3  # top_n
    assert a["slowest"][0]["task_id"] == "syn-5" and a["slowest"][0]["duration_s"] >= 0.5
    assert [r["task_id"] for r in a["costliest"]] == ["syn-9", "syn-7", "syn-6"]
    assert a["costliest"][0]["cost_usd"] == pytest.approx(0.01)


def test_distributions_overall_and_per_outcome(results_dir):
    run_dir = run_mixed(results_dir, enable_analysis=True)["paths"]["run_dir"]
    d = _load(run_dir)["distributions"]
    # turns: completed tasks ran i+1 turns; errored ones (and the timed-out one) report 0
    resolved_turns = d["by_outcome"]["resolved"]["turns"]  # syn-0, syn-6, syn-9: 1, 7, 10
    assert resolved_turns["n"] == 3 and resolved_turns["p50"] == 7 and resolved_turns["max"] == 10
    assert resolved_turns["p90"] == pytest.approx(9.4)
    assert d["overall"]["turns"]["n"] == 10
    assert d["by_outcome"]["unresolved"]["total_tokens"]["max"] == 550  # syn-4: 500 in + 50 out
    assert d["overall"]["duration_s"]["max"] >= 0.5 and d["overall"]["cost_usd"]["p90"] > 0
    assert set(d["by_outcome"]) == {
        "resolved",
        "unresolved",
        "verifier_error",
        "infra_error",
        "model_error",
        "agent_error",
    }
    md = (Path(run_dir) / "analysis.md").read_text()
    assert "## Outcomes" in md and "| resolved | 3 | 3 |" in md and "container vanished: id <id>" in md


def test_the_judge_labels_failed_attempts_and_its_cost_is_counted(results_dir, judge_server):
    params = {"model": judge_model(judge_server), "max_judge_attempts": 6, "judge_concurrency": 3}
    result = run_mixed(results_dir, enable_analysis=True, analysis_params=params)
    run_dir = Path(result["paths"]["run_dir"])
    j = _load(run_dir)["judge"]
    assert len(judge_server.requests) == 6 and judge_server.max_concurrency <= 3
    labels = {lb["task_id"]: lb for lb in j["labels"]}
    assert set(labels) == {"syn-1", "syn-2", "syn-3", "syn-4", "syn-5", "syn-7", "syn-8"}
    assert labels["syn-1"]["category"] == "wrong_solution" and labels["syn-1"]["outcome"] == "unresolved"
    assert labels["syn-2"]["category"] == "infra_failure"
    assert labels["syn-2"]["reason"] == "because syn-2 failed that way"  # one line
    assert labels["syn-3"]["category"] == "other" and "unknown category 'banana'" in labels["syn-3"]["reason"]
    assert labels["syn-7"]["category"] == "verifier_problem"
    assert labels["syn-8"].get("not_judged") is True and labels["syn-8"]["category"] is None
    assert j["n_failed"] == 7 and j["n_judged"] == 6 and j["n_not_judged"] == 1 and j["n_judge_errors"] == 0
    assert j["categories"] == {
        "wrong_solution": 1,
        "infra_failure": 1,
        "other": 1,
        "timeout_or_limit": 2,
        "verifier_problem": 1,
    }
    assert set(j["taxonomy"]) == set(TAXONOMY) and j["model"]["id"] == "judge-model"
    # 6 calls x (1000 input x $1000/M + 50 output x $2000/M) = 6 x 1.1 USD
    assert j["usage"]["calls"] == 6 and j["usage"]["input"] == 6000
    assert j["cost_usd"] == pytest.approx(6.6)
    assert result["metrics"]["analysis_cost_usd"] == pytest.approx(6.6)
    assert result["metrics"]["total_cost_usd"] == pytest.approx(6.6 + result["metrics"]["cost_usd"])
    assert json.loads((run_dir / "summary.json").read_text())["metrics"]["analysis_cost_usd"] == pytest.approx(6.6)
    # the evidence the judge saw: the recorded facts of the attempt and its traceback
    sent = "\n".join(r["body"]["messages"][-1]["content"] for r in judge_server.requests)
    assert "harness crashed at step 17" in sent and '"limit_hit": "step_limit"' in sent
    on_disk = "\n".join(p.read_text(errors="replace") for p in run_dir.rglob("*") if p.is_file())
    assert JUDGE_KEY not in on_disk


def test_judge_failures_are_recorded_not_fatal(results_dir):
    from agentcompass.testing.scripted_server import ScriptedModelServer

    with ScriptedModelServer(replies=[], api_key=JUDGE_KEY) as srv:  # every call: a non-retryable 500
        result = run_mixed(
            results_dir, enable_analysis=True, analysis_params={"model": judge_model(srv), "judge_scope": "all"}
        )
    j = _load(result["paths"]["run_dir"])["judge"]
    assert j["n_failed"] == 9 and j["n_judge_errors"] == 9 and j["n_judged"] == 0  # scope all: 2 retried too
    assert all(lb["judge_error"].startswith("Model") for lb in j["labels"])


def test_analyze_command_on_an_existing_run(results_dir, judge_server, capsys):
    result = run_mixed(results_dir)
    run_dir = Path(result["paths"]["run_dir"])
    assert "analysis" not in result["paths"] and not (run_dir / "analysis.json").exists()
    assert main(["analyze", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "resolved=3" in out and "infra_error=1" in out and str(run_dir / "analysis.md") in out
    assert _load(run_dir)["judge"] is None
    assert json.loads((run_dir / "summary.json").read_text())["paths"]["analysis"] == str(run_dir / "analysis.json")
    params = json.dumps({"model": judge_model(judge_server), "top_n": 2})
    assert main(["analyze", str(run_dir), "--analysis-params", params]) == 0
    a = _load(run_dir)
    assert a["judge"]["n_judged"] == 7 and len(a["slowest"]) == 2
    assert "judge: 7 labelled, cost_usd=7.700000" in capsys.readouterr().out
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["metrics"]["analysis_cost_usd"] == pytest.approx(7.7)
    assert main(["analyze", str(results_dir)]) == 2  # not a run directory
    assert "has no results.jsonl" in capsys.readouterr().err


def test_analysis_params_are_validated_before_anything_runs(results_dir):
    with pytest.raises(ConfigError, match=r"analysis_params: unknown key 'topn'; valid keys: .*top_n"):
        run_mixed(results_dir, enable_analysis=True, analysis_params={"topn": 3})
    with pytest.raises(ConfigError, match="analysis_params: judge_concurrency=0"):
        run_mixed(results_dir, enable_analysis=True, analysis_params={"judge_concurrency": 0})
    assert not results_dir.exists()
    assert main(["analyze", "/nonexistent", "--analysis-params", '{"bogus": 1}']) == 2


def test_similar_messages_group_together():
    a = normalize_message("SandboxError: exec in 3f9a2b7c1d4e failed after 12.5s at /tmp/ws-123/app/x.py:17")
    b = normalize_message("SandboxError: exec in 9c8d7e6f5a4b failed after 3s at /var/tmp/other/y.py:2")
    assert a == b == "SandboxError: exec in <id> failed after <n>s at <path>:<n>"
    assert normalize_message("HTTP 503 from https://api.example.com/v1/chat: busy") == "HTTP <n> from <url>: busy"
    assert (
        normalize_message("request 123e4567-e89b-12d3-a456-426614174000 at 2024-01-02T03:04:05Z")
        == "request <id> at <time>"
    )
