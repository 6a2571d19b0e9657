"""The attempt honours FreshGrading: the agent's environment closes, grading opens a new one (same provider, same
slot, env_open_qps), every environment closes on every path, and a checkpoint is re-graded without an agent
environment. Runs in-process with the memory environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcompass import run_evaluation
from agentcompass.errors import RunTimeoutError
from tests._orchestrator import fresh_support as fs

SUPPORT = "tests._orchestrator.fresh_support"


@pytest.fixture(autouse=True)
def _events():
    fs.EVENTS.clear()
    yield
    fs.EVENTS.clear()


def run(tmp_path: Path, harness: str = "MarkHarness", benchmark_params=None, harness_params=None, **kw):
    return run_evaluation(
        benchmark="synthetic",
        harness="nop",
        model="none",
        environment="memory",
        benchmark_params={"n_tasks": 3, **(benchmark_params or {})},
        harness_params=harness_params or {},
        overrides=[
            f"benchmark._target_={SUPPORT}.FreshBenchmark",
            f"harness._target_={SUPPORT}.{harness}",
            f"environment._target_={SUPPORT}.RecordingProvider",
        ],
        results_dir=str(tmp_path / "results"),
        run_name="fresh",
        progress="none",
        **kw,
    )


def results(result) -> dict[str, dict]:
    rows = [json.loads(line) for line in Path(result["paths"]["results"]).read_text().splitlines()]
    return {
        r["task_id"]: json.loads((Path(result["paths"]["run_dir"]) / r["attempt_dir"] / "result.json").read_text())
        for r in rows
    }


def test_grading_opens_a_new_environment_after_closing_the_agents(tmp_path, monkeypatch):
    from agentcompass._orchestrator.scheduling.pool import Pool

    opens: list[str] = []
    before_open = Pool.before_open

    async def counting(self, provider):
        opens.append(provider)
        await before_open(self, provider)

    monkeypatch.setattr(Pool, "before_open", counting)
    result = run(tmp_path, env_open_qps={"memory": 1000})
    assert result["metrics"]["resolved"] == 3  # the grade saw no agent marker: a fresh environment
    assert opens == ["memory"] * 6  # both opens of every attempt go through env_open_qps
    for task in ("syn-0", "syn-1", "syn-2"):
        assert [e[0] + ":" + e[2] for e in fs.EVENTS if e[1] == task] == [
            "open:agent",
            "close:agent",
            "open:grading",
            "close:grading",
        ]
    for res in results(result).values():
        assert {"env_open", "setup", "agent", "close", "grading_env_open", "verify", "grading_close"} <= set(
            res["phases"]
        )
        assert res["environment"]["role"] == "agent" and res["environment"]["grading"]["role"] == "grading"


def test_without_the_capability_grading_uses_the_agents_environment(tmp_path):
    result = run(tmp_path, benchmark_params={"fresh": False})
    assert result["metrics"]["resolved"] == 0  # the marker is there: graded in the agent's environment
    assert {e[2] for e in fs.EVENTS} == {"agent"} and len(fs.EVENTS) == 6


def test_a_harness_that_needs_no_environment_opens_only_the_grading_one(tmp_path):
    result = run(tmp_path, harness="GivenHarness")
    assert result["metrics"]["resolved"] == 3
    assert {e[2] for e in fs.EVENTS} == {"grading"} and len(fs.EVENTS) == 6


def test_a_grade_without_environment_opens_none(tmp_path):
    result = run(tmp_path, benchmark_params={"empty_means_zero": True}, harness_params={"submit": False})
    assert result["metrics"]["n_errors"] == 0 and result["metrics"]["mean_reward"] == 0
    for task in ("syn-0", "syn-1", "syn-2"):  # the agent's environment only (the harness writes in it)
        assert [e[0] + ":" + e[2] for e in fs.EVENTS if e[1] == task] == ["open:agent", "close:agent"]
    assert all(r["grade"]["details"] == {"status": "empty"} for r in results(result).values())


def test_cancelled_grading_closes_the_grading_environment_and_resume_regrades_without_the_agent(tmp_path):
    runs_log, hold = tmp_path / "agent_runs.txt", tmp_path / "hold"
    hold.touch()
    params = {"benchmark_params": {"hold_file": str(hold)}, "harness_params": {"runs_log": str(runs_log)}}
    with pytest.raises(RunTimeoutError):  # cancelled while grading: the agent phases are checkpointed
        run(tmp_path, **params, timeout_seconds=2, run_id="r1")
    opened = [e for e in fs.EVENTS if e[0] == "open"]
    closed = [e for e in fs.EVENTS if e[0] == "close"]
    assert sorted(opened) == sorted(("open", e[1], e[2]) for e in closed)  # every environment closed
    assert {e[2] for e in opened} == {"agent", "grading"}
    assert sorted(runs_log.read_text().split()) == ["syn-0", "syn-1", "syn-2"]
    fs.EVENTS.clear()
    hold.unlink()
    result = run(tmp_path, **params, reuse=True, reuse_run_id="r1")
    assert result["metrics"]["resolved"] == 3
    assert sorted(runs_log.read_text().split()) == ["syn-0", "syn-1", "syn-2"]  # the agent did not run again
    assert {e[2] for e in fs.EVENTS} == {"grading"} and len(fs.EVENTS) == 6  # no agent environment opened
    for res in results(result).values():
        assert res["resumed_from_checkpoint"] is True and "env_open" not in res["phases"]
        assert set(res["environment"]) == {"grading"}
