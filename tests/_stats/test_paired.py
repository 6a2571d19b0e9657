"""Paired tests, the bootstrap, Holm and power against SciPy / statsmodels with the same inputs (and, for the
bootstrap, the same seed, resamples and batch)."""

from __future__ import annotations

import pytest

from agentcompass._stats import paired, power
from agentcompass._stats.multiple import holm

np = pytest.importorskip("numpy")
stats = pytest.importorskip("scipy.stats")
sm_power = pytest.importorskip("statsmodels.stats.power")
sm_tables = pytest.importorskip("statsmodels.stats.contingency_tables")
sm_multi = pytest.importorskip("statsmodels.stats.multitest")


def graded(seed: int, n: int, shift: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    return a, np.clip(a + rng.normal(shift, 0.25, n), 0, 1)


@pytest.mark.parametrize(("seed", "n", "resamples"), [(0, 40, 2500), (7, 500, 10_000), (3, 7, 999)])
def test_the_paired_bootstrap_is_scipys_with_the_same_seed(seed, n, resamples):
    a, b = graded(seed, n)
    got = paired.bootstrap_interval(list(b - a), seed=seed, n_resamples=resamples)
    ref = stats.bootstrap(
        (a, b),
        lambda x, y, axis: np.mean(y - x, axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=resamples,
        batch=paired.BATCH,
        method="percentile",
        rng=np.random.default_rng(seed),
    ).confidence_interval
    assert (got["low"], got["high"]) == pytest.approx((ref.low, ref.high), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_the_paired_t_interval_and_p_value_agree_with_scipy(seed):
    a, b = graded(seed, 30 + 20 * seed)
    d = b - a
    ci = paired.t_interval(list(d))
    ref = stats.ttest_rel(b, a)
    low, high = ref.confidence_interval(0.95)
    assert (ci["low"], ci["high"]) == pytest.approx((low, high), abs=1e-12)
    assert paired.paired_t_p(list(d)) == pytest.approx(ref.pvalue, abs=1e-12)


@pytest.mark.parametrize(("b_wins", "a_wins", "ties"), [(9, 2, 30), (0, 7, 0), (40, 55, 405), (5, 5, 3)])
def test_mcnemar_is_exact_as_statsmodels_and_scipy(b_wins, a_wins, ties):
    a = [0.0] * b_wins + [1.0] * a_wins + [1.0] * ties
    b = [1.0] * b_wins + [0.0] * a_wins + [1.0] * ties
    got = paired.paired_test(a, b, binary=True)
    table = [[ties, a_wins], [b_wins, 0]]
    assert got["name"] == "mcnemar_exact" and got["discordant"] == a_wins + b_wins
    assert got["p_value"] == pytest.approx(sm_tables.mcnemar(table, exact=True).pvalue, abs=1e-12)
    assert got["p_value"] == pytest.approx(stats.binomtest(b_wins, a_wins + b_wins).pvalue, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_the_sign_flip_test_is_scipys_exact_permutation_test(seed):
    a, b = graded(seed, 11)
    got = paired.sign_flip_p(list(b - a))
    ref = stats.permutation_test(
        (a, b), lambda x, y, axis: np.mean(y - x, axis=axis), permutation_type="samples", vectorized=True,
        n_resamples=np.inf,
    )  # fmt: skip
    assert got["exact"] and got["p_value"] == pytest.approx(ref.pvalue, abs=1e-12)
    mc = paired.sign_flip_p(list(b - a), seed=seed, n_resamples=1000)  # 2 ** 11 > 1000: Monte Carlo
    assert not mc["exact"] and abs(mc["p_value"] - ref.pvalue) < 4 * np.sqrt(ref.pvalue * (1 - ref.pvalue) / 1000)


def test_holm_is_statsmodels_multipletests():
    for ps in ([0.01, 0.04, 0.03, 0.2], [0.5], [1e-5, 0.049, 0.049, 0.01, 0.3, 0.8], [0.02, 0.02]):
        assert holm(ps) == pytest.approx(list(sm_multi.multipletests(ps, method="holm")[1]), abs=1e-15)


@pytest.mark.parametrize("n", [3, 7, 30, 100, 500, 2000])
def test_power_and_the_minimum_detectable_difference_agree_with_statsmodels(n):
    tp = sm_power.TTestPower()
    for effect in (0.05, 0.2, 0.5, 1.0):
        ref = tp.power(effect, n, 0.05)
        if ref == ref:
            assert power.paired_power(effect, n) == pytest.approx(ref, abs=1e-10)
    sd = 0.37
    mde = power.mde(n, sd)
    assert tp.power(mde / sd, n, 0.05) == pytest.approx(0.8, abs=1e-10)  # the root, to the power function's 1e-10
    solved = tp.solve_power(effect_size=None, nobs=n, alpha=0.05, power=0.8)  # statsmodels' root finder
    assert mde / sd == pytest.approx(solved, rel=1e-4)  # its tolerance, not ours


@pytest.mark.parametrize("diff", [0.02, 0.05, 0.1, 0.3])
def test_tasks_needed_is_the_smallest_n_with_80_percent_power(diff):
    tp = sm_power.TTestPower()
    sd = 0.4
    n = power.tasks_needed(diff, sd)
    assert tp.power(diff / sd, n, 0.05) >= 0.8 > tp.power(diff / sd, n - 1, 0.05)
    assert n == int(np.ceil(tp.solve_power(effect_size=diff / sd, nobs=None, alpha=0.05, power=0.8)))


def test_samples_needed_shrinks_the_within_task_variance_until_the_difference_is_detectable():
    n, between, within = 500, 0.02, 0.4
    k = power.samples_needed(0.05, n, between, within)
    assert power.mde(n, (between + within / k) ** 0.5) <= 0.05 < power.mde(n, (between + within / (k - 1)) ** 0.5)
    assert power.samples_needed(0.01, n, between, within) is None  # the between-task variance alone is too much
    assert power.mde(1, 1.0) is None and power.mde(10, 0.0) is None and power.tasks_needed(0.0, 1.0) is None
