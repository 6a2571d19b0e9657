"""``agentcompass analyze`` of a real run with ``-k 4``: the figures with their intervals (as the summary has them)
and the per-task pass rates: a seeded coin harness that always solves two tasks, never two, and flips a coin on
the other three."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agentcompass import run_evaluation

REPO = Path(__file__).resolve().parents[2]
COIN = "agentcompass.testing.coin_harness.CoinHarness"
PER_TASK = {"count-words": 1.0, "hello-file": 1.0, "git-commit": 0.0, "json-transform": 0.0}


def test_analyze_shows_intervals_and_which_tasks_are_coin_flips(tmp_path):
    result = run_evaluation(
        benchmark="demo", harness="oracle", model="none", environment="local", results_dir=str(tmp_path),
        progress="none", log_level="WARNING", n_attempts=4, task_concurrency=4,
        harness_params={"seed": 11, "pass_probability": 0.5, "per_task": PER_TASK},
        overrides=[f"harness._target_={COIN}"],
    )  # fmt: skip
    run_dir = result["paths"]["run_dir"]
    out = subprocess.run(
        [sys.executable, "-m", "agentcompass", "analyze", run_dir],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    analysis = json.loads(Path(run_dir, "analysis.json").read_text())
    m = result["metrics"]
    for key in ("mean_reward", "mean_reward_ci", "pass_at_k", "pass_at_k_ci", "pass_hat_k", "pass_hat_k_ci"):
        assert analysis["figures"][key] == m[key], key
    spread = analysis["task_spread"]
    by_task = {t["task_id"]: t for t in spread["tasks"]}
    assert {t for t, x in by_task.items() if x["class"] == "always"} == {"count-words", "hello-file"}
    assert {t for t, x in by_task.items() if x["class"] == "never"} >= {"git-commit", "json-transform"}
    flips = spread["coin_flips"]
    assert all(by_task[t]["class"] == "sometimes" for t in flips)
    rates = [abs(by_task[t]["pass_rate"] - 0.5) for t in flips]
    assert rates == sorted(rates)  # the closest to a coin flip first
    assert 0 < spread["between_task_share"] <= 1 and spread["counts"]["always"] == 2
    assert "tasks: 2 always pass" in out.stdout and "mean_reward=" in out.stdout and "95% [" in out.stdout
    md = Path(run_dir, "analysis.md").read_text()
    assert "## Figures" in md and "## Per-task pass rates (4 samples per task)" in md and "| pass^4 |" in md
