"""Wilson and task-clustered intervals against statsmodels: ``proportion_confint(method="wilson")`` and OLS on a
constant with ``cov_type="cluster"`` (groups = tasks, t with G - 1 degrees of freedom)."""

from __future__ import annotations

import random

import pytest

from agentcompass._stats.intervals import clustered_se, mean_interval, ratio_interval, wilson

np = pytest.importorskip("numpy")
sm = pytest.importorskip("statsmodels.api")
proportion = pytest.importorskip("statsmodels.stats.proportion")


@pytest.mark.parametrize(("k", "n"), [(0, 7), (7, 7), (3, 7), (1, 20), (250, 500), (499, 500)])
def test_wilson_agrees_with_statsmodels(k, n):
    low, high = proportion.proportion_confint(k, n, alpha=0.05, method="wilson")
    assert wilson(k, n) == pytest.approx((low, high), abs=1e-12)


def _clustered_reference(totals, sizes):
    """statsmodels: OLS of every sample's score on a constant, standard errors clustered by task."""
    y, groups = [], []
    for g, (total, size, values) in enumerate(zip(totals, sizes, _samples(totals, sizes), strict=True)):
        assert abs(sum(values) - total) < 1e-12
        y += values
        groups += [g] * size
    fit = sm.OLS(np.asarray(y), np.ones(len(y))).fit(
        cov_type="cluster", cov_kwds={"groups": np.asarray(groups)}, use_t=True
    )
    low, high = fit.conf_int(alpha=0.05)[0]
    return fit.params[0], fit.bse[0], low, high


def _samples(totals, sizes):
    return [[t / s] * s for t, s in zip(totals, sizes, strict=True)]


@pytest.mark.parametrize("seed", range(5))
def test_the_clustered_interval_agrees_with_statsmodels_cluster_ols(seed):
    rng = random.Random(seed)
    sizes = [rng.choice([1, 2, 3, 5]) for _ in range(rng.randint(5, 60))]
    totals = [s * rng.random() for s in sizes]  # graded per-task outcomes, unequal samples per task
    est, se, low, high = _clustered_reference(totals, sizes)
    got = ratio_interval(totals, sizes)
    assert got["method"] == "cluster_t" and got["n"] == len(sizes)
    assert (got["estimate"], got["se"], got["low"], got["high"]) == pytest.approx((est, se, low, high), abs=1e-10)
    assert clustered_se(totals, sizes) == pytest.approx(se, abs=1e-12)


def test_equal_sizes_give_the_sd_of_task_means_over_root_g():
    means = [0.1, 0.4, 0.4, 0.9, 1.0, 0.0]
    got = mean_interval(means)
    ref = np.std(means, ddof=1) / np.sqrt(len(means))
    assert got["se"] == pytest.approx(ref, abs=1e-15)
    sc = pytest.importorskip("scipy.stats")
    low, high = sc.t.interval(0.95, len(means) - 1, loc=np.mean(means), scale=ref)
    assert (got["low"], got["high"]) == pytest.approx((low, high), abs=1e-12)


def test_binary_tasks_take_wilson_over_tasks_and_bounds_clip():
    got = ratio_interval([3, 0, 3, 3], [3, 3, 3, 3])  # every task all-pass or all-fail: 3 of 4 tasks passed
    assert got["method"] == "wilson" and (got["low"], got["high"]) == pytest.approx(wilson(3, 4), abs=1e-15)
    clipped = mean_interval([1.0, 1.0, 0.98, 1.0], bounds=(0.0, 1.0))
    assert clipped["method"] == "cluster_t" and clipped["high"] == 1.0
    assert mean_interval([0.5])["method"] == "none" and mean_interval([])["estimate"] is None
