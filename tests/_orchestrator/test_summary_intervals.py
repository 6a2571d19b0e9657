"""Every headline figure of a real run's summary with its 95 % interval and method: a seeded coin harness on the
demo benchmark with 5 samples per task, checked against statsmodels (task-clustered OLS, Wilson) and against
pass^k computed here from the samples."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from agentcompass import run_evaluation
from agentcompass._stats.intervals import wilson

np = pytest.importorskip("numpy")
sm = pytest.importorskip("statsmodels.api")

COIN = "agentcompass.testing.coin_harness.CoinHarness"


@pytest.fixture(scope="module")
def coin_run(tmp_path_factory):
    result = run_evaluation(
        benchmark="demo",
        harness="oracle",
        model="none",
        environment="local",
        results_dir=str(tmp_path_factory.mktemp("intervals")),
        progress="none",
        log_level="WARNING",
        n_attempts=5,
        task_concurrency=4,
        overrides=[f"harness._target_={COIN}", "+harness.seed=7", "+harness.pass_probability=0.5"],
    )
    rows = [json.loads(line) for line in Path(result["paths"]["results"]).read_text().splitlines()]
    return result, rows


def test_the_mean_reward_interval_is_statsmodels_task_clustered_ols(coin_run):
    result, rows = coin_run
    m = result["metrics"]
    y = np.array([float(r["reward"]) for r in rows])
    groups = np.array([sorted({r["task_id"] for r in rows}).index(r["task_id"]) for r in rows])
    fit = sm.OLS(y, np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    low, high = fit.conf_int(alpha=0.05)[0]
    ci = m["mean_reward_ci"]
    assert ci["method"] == "cluster_t" and ci["n"] == 7 and ci["level"] == 0.95
    assert (ci["estimate"], ci["se"], ci["low"], ci["high"]) == pytest.approx(
        (fit.params[0], fit.bse[0], low, high), abs=1e-6
    )  # the summary rounds to 6 digits
    assert m["mean_reward_stderr"] == ci["se"] and m["pass_rate_ci"]["low"] == ci["low"]
    assert m["n_tries"] == m["n_samples"] == 35 and "n_attempts" not in m


def test_pass_hat_k_is_the_unbiased_estimator_with_intervals_over_tasks(coin_run):
    result, rows = coin_run
    m = result["metrics"]
    counts = {}
    for r in rows:
        counts.setdefault(r["task_id"], []).append(r["reward"] >= 1)
    for k in range(1, 6):
        per_task = [math.comb(sum(c), k) / math.comb(len(c), k) for c in counts.values()]
        assert m["pass_hat_k"][str(k)] == round(sum(per_task) / len(per_task), 6)
        ci = m["pass_hat_k_ci"][str(k)]
        if set(per_task) <= {0.0, 1.0}:
            assert ci["method"] == "wilson"
            assert (ci["low"], ci["high"]) == pytest.approx(wilson(int(sum(per_task)), 7), abs=1e-6)
        else:
            assert ci["method"] == "cluster_t" and 0.0 <= ci["low"] <= ci["estimate"] <= ci["high"] <= 1.0
    assert m["pass_hat_k"]["1"] == m["pass_at_k"]["1"] == m["pass_rate"]
    assert m["pass_hat_k"]["5"] <= m["pass_hat_k"]["1"] <= m["pass_at_k"]["5"]


def test_the_end_of_run_table_names_each_interval_and_its_method(coin_run):
    from agentcompass._sdk import format_result

    text = format_result(coin_run[0])
    m = coin_run[0]["metrics"]
    ci = m["mean_reward_ci"]
    assert f"mean_reward         {m['mean_reward']:.4f}  [{ci['low']:.4f}, {ci['high']:.4f}]" in text
    assert "cluster_t over 7 tasks (errors count 0)" in text
    assert "pass^5" in text and "pass@5" in text and "tries=35" in text
