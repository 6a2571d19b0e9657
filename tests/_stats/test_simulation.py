"""Seeded simulations with a known truth: 2,000 synthetic pairs of runs per scenario (tasks drawn afresh each
time). The 95 % intervals must cover the true difference 93-97 % of the time, the paired tests must reject a
true null at 5 % +/- 1.5 % (the exact McNemar test is conservative: at most 6.5 %), and a difference equal to the
minimum detectable one must be detected about 80 % of the time. The data are drawn at once with numpy; each pair
goes through the same functions ``compare`` uses."""

from __future__ import annotations

import pytest

from agentcompass._stats import paired, power
from agentcompass._stats.intervals import mean_interval, ratio_interval

np = pytest.importorskip("numpy")

PAIRS = 2000
RESAMPLES = 999


def covers(ci: dict, truth: float) -> bool:
    return ci["low"] <= truth <= ci["high"]


def graded_pairs(seed: int, n: int, diff: float, sd: float = 0.25) -> tuple[np.ndarray, np.ndarray]:
    """PAIRS x n per-task rewards: A uniform, B = A + diff + noise (the truth is ``diff``)."""
    rng = np.random.default_rng(seed)
    a = rng.random((PAIRS, n))
    return a, a + diff + rng.normal(0.0, sd, (PAIRS, n))


def binary_pairs(seed: int, n: int, diff: float) -> tuple[np.ndarray, np.ndarray]:
    """PAIRS x n per-task pass/fail: each task has its own difficulty p; A passes with p, B with p + diff."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.0, 1.0 - diff, (PAIRS, n))
    a = (rng.random((PAIRS, n)) < p).astype(float)
    b = (rng.random((PAIRS, n)) < p + diff).astype(float)
    return a, b


def test_graded_intervals_cover_the_true_difference_and_the_t_test_holds_its_level():
    truth, n = 0.05, 60
    a, b = graded_pairs(1, n, truth)
    t_cover = boot_cover = 0
    for i in range(PAIRS):
        d = list(b[i] - a[i])
        t_cover += covers(paired.t_interval(d), truth)
        boot_cover += covers(paired.bootstrap_interval(d, seed=i, n_resamples=RESAMPLES), truth)
    assert 0.93 <= t_cover / PAIRS <= 0.97, t_cover / PAIRS
    assert 0.93 <= boot_cover / PAIRS <= 0.97, boot_cover / PAIRS
    a0, b0 = graded_pairs(2, n, 0.0)
    rejected = sum(paired.paired_t_p(list(b0[i] - a0[i])) <= 0.05 for i in range(PAIRS))
    assert 0.035 <= rejected / PAIRS <= 0.065, rejected / PAIRS


def test_binary_intervals_cover_the_true_difference_and_mcnemar_holds_its_level():
    truth, n = 0.1, 200
    a, b = binary_pairs(3, n, truth)
    cover = sum(covers(paired.t_interval(list(b[i] - a[i])), truth) for i in range(PAIRS))
    assert 0.93 <= cover / PAIRS <= 0.97, cover / PAIRS
    a0, b0 = binary_pairs(4, n, 0.0)
    rejected = sum(paired.paired_test(list(a0[i]), list(b0[i]), binary=True)["p_value"] <= 0.05 for i in range(PAIRS))
    assert rejected / PAIRS <= 0.065, rejected / PAIRS
    assert rejected / PAIRS >= 0.03, rejected / PAIRS  # conservative, not dead


def test_a_difference_of_one_mde_is_detected_80_percent_of_the_time():
    n, sd = 50, 0.25
    mde = power.mde(n, sd)
    rng = np.random.default_rng(5)
    d = mde + rng.normal(0.0, sd, (PAIRS, n))
    detected = sum(paired.paired_t_p(list(row)) <= 0.05 for row in d)
    assert 0.77 <= detected / PAIRS <= 0.83, detected / PAIRS


def test_a_runs_intervals_cover_its_true_mean():
    rng = np.random.default_rng(6)
    p = rng.uniform(0.0, 1.0, (PAIRS, 80))  # k = 5 samples of tasks of their own difficulty: truth 0.5
    passes = rng.binomial(5, p)
    clustered = sum(covers(ratio_interval(list(map(float, passes[i])), [5] * 80), 0.5) for i in range(PAIRS))
    assert 0.93 <= clustered / PAIRS <= 0.97, clustered / PAIRS
    single = (rng.random((PAIRS, 120)) < 0.3).astype(float)  # one sample per task: Wilson
    wilson = [mean_interval(list(single[i])) for i in range(PAIRS)]
    assert {ci["method"] for ci in wilson} == {"wilson"}
    assert 0.93 <= sum(covers(ci, 0.3) for ci in wilson) / PAIRS <= 0.97
