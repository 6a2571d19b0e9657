"""``export harbor`` of a run with repeated samples: one trial per (task, sample), ``n_attempts`` in the job
config, and Harbor's own pass@k over the exported trials (run in the ``harbor`` reference venv) equal to the
pass_at_k the export wrote; ours, which counts errors as failures, differs where samples errored."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agentcompass import run_evaluation
from agentcompass.testing.reference import run_reference
from tests.benchmarks.terminal_bench.reference_support import require_reference

REPO = Path(__file__).resolve().parents[2]
COIN = "agentcompass.testing.coin_harness.CoinHarness"

HARBOR_PASS_AT_K = """
import json, sys
from pathlib import Path
from harbor.models.job.result import JobStats
from harbor.utils.pass_at_k import compute_pass_at_k_by_evals
from harbor.viewer.scanner import JobScanner

scanner = JobScanner(Path(json.load(sys.stdin)))
out = {}
for job in scanner.list_jobs():
    config, result = scanner.get_job_config(job), scanner.get_job_result(job)
    names = scanner.list_trials(job)
    trials = [scanner.get_trial_result(job, n) for n in names]
    theirs = JobStats.from_trial_results(trials, n_total_trials=result.n_total_trials,
                                         n_retries=result.stats.n_retries)
    ours = result.stats.model_copy(deep=True)
    written = {k: {str(kk): vv for kk, vv in v.pass_at_k.items()} for k, v in ours.evals.items()}
    for v in ours.evals.values():
        v.metrics, v.pass_at_k = [], {}
    harbor = {k: {str(kk): vv for kk, vv in v.items()} for k, v in compute_pass_at_k_by_evals(trials).items()}
    out[job] = {"n_attempts": config.n_attempts, "names": sorted(names), "written": written, "harbor": harbor,
                "stats_agree": theirs.model_dump() == ours.model_dump(),
                "valid": sum(1 for t in trials if t.reward_valid)}
print(json.dumps(out))
"""


def test_export_of_samples_agrees_with_harbors_pass_at_k(tmp_path):
    require_reference("harbor")
    binary = ["count-words", "fix-python-script", "fix-shell-script", "git-commit", "hello-file", "json-transform"]
    result = run_evaluation(
        benchmark="demo",
        harness="oracle",
        model="none",
        environment="local",
        n_attempts=4,
        benchmark_params={"sample_ids": binary},  # Harbor's pass@k needs one 0/1 reward
        results_dir=str(tmp_path / "results"),
        progress="none",
        log_level="ERROR",
        overrides=[
            f"harness._target_={COIN}",
            "+harness.seed=2",
            "+harness.pass_probability=0.5",
            "+harness.fail_samples=[1]",
        ],
    )
    m = result["metrics"]
    assert (m["n_samples"], m["n_errors"], m["samples_per_task"]) == (24, 6, 4)
    out = tmp_path / "jobs"
    res = subprocess.run(
        [sys.executable, "-m", "agentcompass", "export", "harbor", result["paths"]["run_dir"], str(out)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    (job,) = run_reference("harbor", HARBOR_PASS_AT_K, str(out)).values()
    assert job["n_attempts"] == 4 and len(job["names"]) == 24 and job["valid"] == 18
    assert "hello-file__sample-3__attempt-1" in job["names"]
    assert job["stats_agree"] is True
    (written,) = job["written"].values()
    (harbor,) = job["harbor"].values()
    assert written == harbor and list(harbor) == ["2"]  # 3 valid trials per task: Harbor takes k = 2 only
    assert 0 < harbor["2"] < 1
    # ours keeps the errored sample 1 of every task as a failure, over 4 samples: not Harbor's number
    assert set(m["pass_at_k"]) == {"1", "2", "3", "4"} and m["pass_at_k"]["2"] < harbor["2"]
