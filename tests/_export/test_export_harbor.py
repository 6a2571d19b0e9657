"""``agentcompass export harbor``: two real runs (terminus2 against the scripted model server; the oracle on tasks
with a solution, without one, and without a reward, with a retry) exported through the CLI, then read back in
the ``harbor`` reference venv with Harbor's own job / trial / trajectory models and its stats code."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentcompass import run_evaluation
from agentcompass.errors import EvaluationFailedError
from agentcompass.testing.reference import run_reference
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.benchmarks.tb_fixtures import make_task
from tests.benchmarks.terminal_bench.reference_support import require_reference
from tests.harnesses.terminus2.t2_support import harbor_dir, reply

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="terminus2 needs tmux")

HARBOR_READS = """
import json, sys
from pathlib import Path
from harbor.metrics.mean import Mean
from harbor.models.job.config import JobConfig
from harbor.models.job.result import JobResult, JobStats
from harbor.models.trajectories import Trajectory
from harbor.viewer.scanner import JobScanner

out = {}
scanner = JobScanner(Path(json.load(sys.stdin)))
for job in scanner.list_jobs():
    config, result = scanner.get_job_config(job), scanner.get_job_result(job)
    assert config is not None and result is not None, job
    trials = {}
    results = []
    for name in scanner.list_trials(job):
        tr, tc = scanner.get_trial_result(job, name), scanner.get_trial_config(job, name)
        assert tr is not None and tc is not None and tc.trial_name == name, name
        results.append(tr)
        agent_dir = scanner.jobs_dir / job / name / "agent"
        steps = None
        if (agent_dir / "trajectory.json").is_file():
            steps = len(Trajectory.model_validate_json((agent_dir / "trajectory.json").read_text()).steps)
        trials[tr.task_name] = {"rewards": tr.verifier_result.rewards if tr.verifier_result else None,
                                "reward_valid": tr.reward_valid,
                                "exception": tr.exception_info.exception_type if tr.exception_info else None,
                                "trajectory_steps": steps, "agent": tr.agent_info.name,
                                "verifier_files": sorted(p.name for p in (agent_dir.parent / "verifier").iterdir())}
    theirs = JobStats.from_trial_results(results, n_total_trials=result.n_total_trials,
                                         n_retries=result.stats.n_retries)
    ours = result.stats.model_copy(deep=True)
    metrics = {k: v.metrics for k, v in ours.evals.items()}
    for v in ours.evals.values():
        v.metrics = []
    valid = [t.verifier_result.rewards for t in results if t.reward_valid]
    out[job] = {"trials": trials, "stats_agree": theirs.model_dump() == ours.model_dump(),
                "metrics": metrics, "harbor_mean": Mean().compute(valid) if valid else None,
                "n_retries": result.stats.n_retries, "n_errored": result.stats.n_errored_trials,
                "agents": [a.name for a in config.agents]}

# what `harbor view` serves: its own FastAPI app over the same folder
from fastapi.testclient import TestClient
from harbor.viewer.server import create_app

client = TestClient(create_app(scanner.jobs_dir, mode="jobs"))
listed = client.get("/api/jobs").json()
served = {"jobs": sorted(item["name"] for item in listed["items"])}
for job in served["jobs"]:
    trials = client.get(f"/api/jobs/{job}/trials").json()["items"]
    for trial in trials:
        name = trial["name"]
        detail = client.get(f"/api/jobs/{job}/trials/{name}")
        trajectory = client.get(f"/api/jobs/{job}/trials/{name}/trajectory")
        verifier = client.get(f"/api/jobs/{job}/trials/{name}/verifier-output")
        assert detail.status_code == trajectory.status_code == verifier.status_code == 200, name
        served[f"{job}/{detail.json()['task_name']}"] = {
            "reward": trial.get("reward"), "steps": len((trajectory.json() or {}).get("steps", [])),
            "stdout": verifier.json().get("stdout")}
out["viewer"] = served
print(json.dumps(out))
"""


def _terminus_replies(request: dict) -> str:
    """hello-file: write the file, look until the terminal shows it, then complete twice; other tasks: complete."""
    messages = request["body"]["messages"]
    if "hello.txt" not in messages[0]["content"]:
        return reply(task_complete=True)
    turns = sum(1 for m in messages if m["role"] == "assistant")
    if turns == 0:
        return reply("printf 'Hello, world!\\n' > hello.txt\n")
    if "Hello, world!\n" not in "".join(m["content"] for m in messages[2:] if m["role"] == "user") and turns < 20:
        return reply(("cat hello.txt\n", 1.0))
    return reply(task_complete=True)


def _evaluate(**kw) -> dict:
    try:
        return run_evaluation(progress="none", log_level="WARNING", **kw)
    except EvaluationFailedError as exc:
        return exc.result


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("export")
    with ScriptedModelServer(replies=_terminus_replies) as srv:
        terminus = _evaluate(
            benchmark="demo",
            harness="terminus2",
            model="m",
            environment="local",
            model_base_url=srv.base_url,
            model_api_key="sk-test",
            model_api_protocol="openai-chat",
            benchmark_params={"sample_ids": ["hello-file", "partial-credit"]},
            task_concurrency=1,
            harness_params={"templates_dir": harbor_dir()},
            results_dir=str(tmp / "results"),
            data_dir=str(tmp / "data"),
        )
    make_task(tmp / "tasks", "solved")
    make_task(tmp / "tasks", "no-solution", solve_sh=None)
    make_task(tmp / "tasks", "no-reward", test_sh="#!/bin/bash\necho nothing written\n")
    oracle = _evaluate(
        benchmark="terminal_bench",
        harness="oracle",
        model="none",
        environment="local",
        benchmark_params={"dataset_path": str(tmp / "tasks")},
        max_retries=1,
        retry_pattern_list=["no reward file"],
        results_dir=str(tmp / "results"),
        data_dir=str(tmp / "data"),
    )
    out = tmp / "harbor-jobs"
    for result in (terminus, oracle):
        res = subprocess.run(
            [sys.executable, "-m", "agentcompass", "export", "harbor", result["paths"]["run_dir"], str(out)],
            env={**os.environ, "PYTHONPATH": str(REPO)},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert res.returncode == 0 and res.stdout.startswith("harbor job: "), res.stderr
    return terminus, oracle, out


def _rows(result: dict) -> dict[str, dict]:
    return {r["task_id"]: r for r in map(json.loads, Path(result["paths"]["results"]).read_text().splitlines())}


def test_harbor_reads_the_export_with_rewards_and_trajectories_intact(runs):
    require_reference("harbor")
    terminus, oracle, out = runs
    jobs = run_reference("harbor", HARBOR_READS, str(out))
    viewer = jobs.pop("viewer")
    assert len(jobs) == 2 and viewer["jobs"] == sorted(jobs)
    for result in (terminus, oracle):
        meta = result["metadata"]
        job = jobs[f"{meta['run_name']}__{meta['run_id']}"]
        rows = _rows(result)
        assert sorted(job["trials"]) == sorted(rows) and job["agents"] == [meta["harness"]]
        assert job["stats_agree"] is True, job  # our stats == Harbor's JobStats of our trials
        for tid, row in rows.items():
            trial = job["trials"][tid]
            assert trial["reward_valid"] is row["reward_valid"], (tid, trial, row)
            assert trial["exception"] == (row["error"] or {}).get("type"), (tid, trial)
            if row["reward_valid"]:
                assert trial["rewards"] == row["rewards"] and trial["rewards"]["reward"] == row["reward"]
        [metric] = next(iter(job["metrics"].values()))
        assert metric == job["harbor_mean"]  # Harbor's mean of the valid rewards
    for result in (terminus, oracle):  # the viewer's API serves every trial
        job = f"{result['metadata']['run_name']}__{result['metadata']['run_id']}"
        assert sorted(k.split("/", 1)[1] for k in viewer if k.startswith(job + "/")) == sorted(_rows(result))
    t_job = jobs[f"{terminus['metadata']['run_name']}__{terminus['metadata']['run_id']}"]
    for tid, row in _rows(terminus).items():
        ours = json.loads((Path(row["attempt_dir"]) / "trajectory.json").read_text())
        assert t_job["trials"][tid]["trajectory_steps"] == len(ours["steps"]) >= 2
        assert viewer[f"{terminus['metadata']['run_name']}__{terminus['metadata']['run_id']}/{tid}"]["steps"] == len(
            ours["steps"]
        )
    assert t_job["trials"]["hello-file"]["rewards"] == {"reward": 1.0}
    o_job = jobs[f"{oracle['metadata']['run_name']}__{oracle['metadata']['run_id']}"]
    assert o_job["trials"]["no-solution"] == {
        **o_job["trials"]["no-solution"],
        "exception": "AgentError",
        "reward_valid": True,
        "rewards": {"reward": 0.0},
    }
    assert o_job["trials"]["no-reward"]["exception"] == "VerifierError"
    assert o_job["trials"]["no-reward"]["reward_valid"] is False
    assert o_job["trials"]["solved"]["verifier_files"] == ["reward.txt", "test-stdout.txt"]
    assert o_job["trials"]["no-reward"]["verifier_files"] == ["test-stdout.txt"]
    o_name = f"{oracle['metadata']['run_name']}__{oracle['metadata']['run_id']}"
    assert viewer[f"{o_name}/no-reward"]["stdout"].strip() == "nothing written"
    assert viewer[f"{o_name}/solved"]["reward"] == 1.0
    no_reward = next(out.glob("*/no-reward__attempt-2/verifier/test-stdout.txt"))
    assert no_reward.read_text().strip() == "nothing written"
    assert (o_job["n_retries"], o_job["n_errored"]) == (1, 2)
    assert next(iter(o_job["metrics"].values())) == [{"mean": 0.5}]  # solved 1.0, no-solution 0.0


def test_export_refuses_a_directory_that_is_not_a_run_and_an_existing_job(runs, tmp_path):
    terminus, _, out = runs
    argv = [sys.executable, "-m", "agentcompass", "export", "harbor"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    res = subprocess.run(
        argv + [str(tmp_path), str(tmp_path / "o")], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert res.returncode == 2 and "not an agentcompass run directory (no results.jsonl)" in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
    res = subprocess.run(
        argv + [terminus["paths"]["run_dir"], str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert res.returncode == 2 and "already exists" in res.stderr


def test_a_moved_run_directory_is_exported_from_its_new_place(runs, tmp_path):
    _, oracle, _ = runs
    moved = tmp_path / "moved-run"
    shutil.copytree(oracle["paths"]["run_dir"], moved)
    original = Path(oracle["paths"]["run_dir"])
    hidden = original.with_name(original.name + ".away")
    original.rename(hidden)  # the recorded attempt folders are gone
    try:
        res = subprocess.run(
            [sys.executable, "-m", "agentcompass", "export", "harbor", str(moved), str(tmp_path / "jobs")],
            env={**os.environ, "PYTHONPATH": str(REPO)},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    finally:
        hidden.rename(original)
    assert res.returncode == 0, res.stderr
    trials = sorted(p.name for p in next((tmp_path / "jobs").iterdir()).iterdir() if p.is_dir())
    assert trials == ["no-reward__attempt-2", "no-solution__attempt-1", "solved__attempt-1"]
    stdout = next((tmp_path / "jobs").glob("*/no-reward__attempt-2/verifier/test-stdout.txt"))
    assert stdout.read_text().strip() == "nothing written"
