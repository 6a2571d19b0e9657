"""``agentcompass compare`` on three real demo runs (oracle, nop, a seeded coin harness with -k 5): the leaderboard,
the Holm-marked matrix, the flips, every format, errors reported apart, and one-line errors for bad input. The
numbers are checked against SciPy computed here from the runs' results.jsonl."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentcompass import compare_runs, run_evaluation

REPO = Path(__file__).resolve().parents[2]
COIN = "agentcompass.testing.coin_harness.CoinHarness"
DEMO_TASKS = 7


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    results = tmp_path_factory.mktemp("compare")
    common = dict(model="none", environment="local", results_dir=str(results), progress="none", log_level="WARNING")
    oracle = run_evaluation(benchmark="demo", harness="oracle", run_name="oracle", **common)
    nop = run_evaluation(benchmark="demo", harness="nop", run_name="nop", **common)
    coin = run_evaluation(
        benchmark="demo",
        harness="oracle",
        run_name="coin",
        n_attempts=5,
        overrides=[f"harness._target_={COIN}", "+harness.seed=7", "+harness.pass_probability=0.5"],
        **common,
    )
    return {name: r["paths"]["run_dir"] for name, r in (("oracle", oracle), ("nop", nop), ("coin", coin))}


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agentcompass", "compare", *args], cwd=REPO, capture_output=True, text=True, timeout=300
    )


def per_task(run_dir: str) -> dict[str, float]:
    scores: dict[str, list[float]] = {}
    for line in Path(run_dir, "results.jsonl").read_text().splitlines():
        row = json.loads(line)
        scores.setdefault(row["task_id"], []).append(float(row["reward"]))
    return {t: sum(v) / len(v) for t, v in scores.items()}


def test_the_leaderboard_and_flips_of_three_real_runs(runs):
    out = cli(runs["oracle"], runs["nop"], runs["coin"])
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert f"compare 3 runs of benchmark demo: {DEMO_TASKS} tasks shared of {DEMO_TASKS}" in text
    board = text.split("leaderboard")[1].split("pairwise")[0]
    assert board.index("A oracle/") < board.index("C coin/") < board.index("B nop/")
    assert "pairwise differences (row - column; * significant after Holm correction)" in text
    assert "+1.0000*" in text  # oracle - nop, significant after Holm
    assert "A better on 7 tasks: count-words" in text and "C better on 7 tasks" in text
    assert "mcnemar_exact p=0.0156" in text and "paired_t p=" in text and "sign-flip permutation p=" in text
    assert "power: 80% to detect" in text


def test_the_numbers_are_scipys_on_the_runs_own_results(runs):
    stats = pytest.importorskip("scipy.stats")
    c = compare_runs(runs["nop"], runs["coin"], detect=0.2)
    nop, coin = per_task(runs["nop"]), per_task(runs["coin"])
    tasks = sorted(nop)
    ref = stats.ttest_rel([coin[t] for t in tasks], [nop[t] for t in tasks])
    (pair,) = c["pairs"]
    assert pair["test"]["name"] == "paired_t" and pair["test"]["p_value"] == pytest.approx(ref.pvalue, abs=1e-12)
    low, high = ref.confidence_interval(0.95)
    assert (pair["ci"]["low"], pair["ci"]["high"]) == pytest.approx((low, high), abs=1e-12)
    assert pair["mean_diff"] == pytest.approx(sum(coin.values()) / DEMO_TASKS, abs=1e-12)
    assert pair["power"]["tasks_needed"] >= 2 and pair["power"]["samples_needed"] is None  # nop has one sample
    assert c["leaderboard"][0]["label"] == "B" and c["leaderboard"][0]["samples_per_task"] == [5]


def test_every_format(runs, tmp_path):
    args = (runs["oracle"], runs["coin"])
    data = json.loads(cli(*args, "--format", "json").stdout)
    assert data["errors"] == "excluded" and data["pairs"][0]["bootstrap"]["n_resamples"] == 10_000
    rows = list(csv.DictReader(io.StringIO(cli(*args, "--format", "csv", "--detect", "0.1").stdout)))
    assert len(rows) == 1 and rows[0]["a"] == "A" and rows[0]["test"] == "paired_t" and rows[0]["detect"] == "0.1"
    md = cli(*args, "--format", "md", "-o", str(tmp_path / "c.md"))
    assert md.returncode == 0 and md.stdout.startswith("# Comparison") and "| rank | run |" in md.stdout
    assert (tmp_path / "c.md").read_text().startswith("# Comparison")
    again = json.loads(cli(*args, "--format", "json", "--seed", "3", "--resamples", "500").stdout)
    assert again["pairs"][0]["bootstrap"]["seed"] == 3 and again["pairs"][0]["bootstrap"]["n_resamples"] == 500


def test_errored_tasks_are_reported_apart_unless_errors_as_zero(runs, tmp_path):
    broken = tmp_path / "res" / "nop-err" / "r1"
    shutil.copytree(runs["nop"], broken)
    lines = [json.loads(x) for x in (broken / "results.jsonl").read_text().splitlines()]
    lines[0].update(status="error", reward=None, reward_valid=False, error={"type": "SandboxError", "message": "x"})
    (broken / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    excluded = compare_runs(runs["oracle"], str(broken))
    assert excluded["tasks"]["errored"]["B"] == [lines[0]["task_id"]] and excluded["pairs"][0]["n"] == DEMO_TASKS - 1
    as_zero = compare_runs(runs["oracle"], str(broken), errors_as_zero=True)
    assert as_zero["errors"] == "as_zero" and as_zero["pairs"][0]["n"] == DEMO_TASKS
    text = cli(runs["oracle"], str(broken)).stdout
    assert "errors excluded: 1 task(s) errored" in text and f"errored 1: {lines[0]['task_id']}" in text


def test_bad_input_is_one_line_and_exit_2(runs, tmp_path):
    missing = cli(runs["oracle"], str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "is not a run directory" in missing.stderr
    other = run_evaluation(
        benchmark="synthetic", harness="nop", model="none", environment="local", results_dir=str(tmp_path / "o"),
        progress="none", log_level="WARNING", benchmark_params={"n_tasks": 2},
    )  # fmt: skip
    mixed = cli(runs["oracle"], other["paths"]["run_dir"])
    assert mixed.returncode == 2 and mixed.stderr.count("\n") == 1
    assert "runs of different benchmarks cannot be compared" in mixed.stderr and "(synthetic)" in mixed.stderr
    one = cli(runs["oracle"])
    assert one.returncode == 2 and "at least two run directories" in one.stderr
    bad = cli(runs["oracle"], runs["nop"], "--detect", "-1")
    assert bad.returncode == 2 and "--detect" in bad.stderr
