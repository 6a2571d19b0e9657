"""The distributions of ``agentcompass._stats.dist`` against SciPy (a test extra; runtime code never imports it)."""

from __future__ import annotations

import pytest

from agentcompass._stats import dist

stats = pytest.importorskip("scipy.stats")

DFS = [1, 2, 3, 6, 9, 29, 99, 499, 1999]


@pytest.mark.parametrize("df", DFS)
def test_t_quantiles_and_tails_agree_with_scipy(df):
    for p in (0.0005, 0.025, 0.1, 0.5, 0.8, 0.975, 0.9995):
        assert dist.t_ppf(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-10, abs=1e-10)
    for t in (-30.0, -3.0, -1.96, -0.3, 0.0, 0.5, 2.0, 10.0):
        assert dist.t_cdf(t, df) == pytest.approx(stats.t.cdf(t, df), abs=1e-12)
        assert dist.t_sf(t, df) == pytest.approx(stats.t.sf(t, df), abs=1e-12)


def test_normal_agrees_with_scipy():
    for p in (1e-6, 0.025, 0.5, 0.8, 0.975):
        assert dist.norm_ppf(p) == pytest.approx(stats.norm.ppf(p), rel=1e-12)
    for x in (-8.0, -1.96, 0.0, 0.84, 3.0):
        assert dist.norm_cdf(x) == pytest.approx(stats.norm.cdf(x), abs=1e-15)
        assert dist.norm_sf(x) == pytest.approx(stats.norm.sf(x), abs=1e-15)


@pytest.mark.parametrize("df", [2, 6, 49, 499, 1999])
def test_noncentral_t_agrees_with_scipy(df):
    for nc in (-3.0, -0.5, 0.0, 1.0, 2.8, 5.0):
        for t in (-4.0, -1.96, -0.5, 0.5, 1.96, 4.0, 8.0):
            ref = stats.nct.cdf(t, df, nc)
            if ref == ref:  # SciPy's own series gives NaN far in some tails
                assert dist.nct_cdf(t, df, nc) == pytest.approx(ref, abs=1e-11)


def test_betainc_agrees_with_scipy():
    special = pytest.importorskip("scipy.special")
    for a, b in ((0.5, 0.5), (1.0, 3.0), (3.5, 250.0), (1000.0, 0.5)):
        for x in (1e-6, 0.01, 0.3, 0.5, 0.99):
            assert dist.betainc(a, b, x) == pytest.approx(special.betainc(a, b, x), abs=1e-12)


def test_the_sign_test_is_scipys_exact_binomial_test():
    for n in (*range(0, 12), 19, 20, 37, 64):
        for k in range(n + 1):
            expected = stats.binomtest(k, n, 0.5).pvalue if n else 1.0
            assert dist.sign_test_p(k, n) == pytest.approx(expected, abs=1e-12), (k, n)
    assert dist.sign_test_p(400, 1000) == pytest.approx(stats.binomtest(400, 1000, 0.5).pvalue, rel=1e-9)
