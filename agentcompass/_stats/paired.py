"""Paired comparison of two runs over the tasks they share: per-task differences ``d_i = b_i - a_i``.

- interval (the one shown): ``mean(d) +/- t(0.975, n - 1) * sd(d) / sqrt(n)``, the task-clustered standard error
  of the mean difference (a task's samples are averaged first, so they count once);
- a seeded paired bootstrap: tasks resampled with replacement (numpy's PCG64 from ``seed``, drawn in blocks of
  ``BATCH`` resamples), the percentile interval of the resampled mean differences; equal to
  ``scipy.stats.bootstrap(..., paired=True, method="percentile", batch=BATCH)`` with the same seed;
- the p-value: exact McNemar (the sign test on the discordant tasks) when every per-task outcome is 0 or 1 in
  both runs, else the paired t test; for graded outcomes also the sign-flip permutation test (exact when the
  ``2 ** m`` sign patterns of the ``m`` non-zero differences are at most ``n_resamples``, else seeded Monte Carlo
  with the ``(1 + hits) / (1 + n_resamples)`` p-value).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .dist import sign_test_p, t_ppf, t_sf
from .intervals import LEVEL
from .shapes import BootstrapInterval, DiffInterval, PairedTest, PairStats, Permutation

BATCH = 1000
N_RESAMPLES = 10_000


def _mean_sd(d: Sequence[float]) -> tuple[float, float | None]:
    n = len(d)
    mean = sum(d) / n
    return mean, math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1)) if n > 1 else None


def t_interval(d: Sequence[float], level: float = LEVEL) -> DiffInterval:
    n = len(d)
    mean, sd = _mean_sd(d)
    if sd is None:
        return {"low": None, "high": None, "se": None, "method": "none", "level": level}
    se = sd / math.sqrt(n)
    half = t_ppf(0.5 + level / 2, n - 1) * se
    return {"low": mean - half, "high": mean + half, "se": se, "method": "cluster_t", "level": level}


def bootstrap_interval(
    d: Sequence[float], seed: int = 0, n_resamples: int = N_RESAMPLES, level: float = LEVEL
) -> BootstrapInterval:
    """The seeded paired bootstrap's percentile interval of the mean difference."""
    import numpy as np

    arr = np.asarray(d, dtype=float)
    rng = np.random.default_rng(seed)
    means = []
    for start in range(0, n_resamples, BATCH):
        idx = rng.integers(0, len(arr), (min(BATCH, n_resamples - start), len(arr)))
        means.append(arr[idx].mean(axis=-1))
    theta = np.concatenate(means)
    alpha = (1 - level) / 2
    low, high = np.quantile(theta, [alpha, 1 - alpha])
    return {
        "low": float(low),
        "high": float(high),
        "method": "paired_bootstrap_percentile",
        "level": level,
        "seed": seed,
        "n_resamples": n_resamples,
    }


def paired_t_p(d: Sequence[float]) -> float:
    """Two-sided p-value of the paired t test (1 when nothing differs, 0 when every task differs equally)."""
    mean, sd = _mean_sd(d)
    if sd is None:
        return 1.0
    if sd == 0:
        return 1.0 if mean == 0 else 0.0
    t = mean / (sd / math.sqrt(len(d)))
    return min(1.0, 2 * t_sf(abs(t), len(d) - 1))


def sign_flip_p(d: Sequence[float], seed: int = 0, n_resamples: int = N_RESAMPLES) -> Permutation:
    """Two-sided p-value of the sign-flip permutation test of the mean difference."""
    import numpy as np

    arr = np.asarray([x for x in d if x != 0], dtype=float)
    m, n = len(arr), len(d)
    if m == 0:
        return {"p_value": 1.0, "exact": True, "n_resamples": 1}
    observed = abs(arr.sum() / n)
    gamma = abs(observed) * np.finfo(float).eps * 100
    if 2**m <= n_resamples:
        signs = 1 - 2 * ((np.arange(2**m)[:, None] >> np.arange(m)[None, :]) & 1)
        null = np.abs((signs * arr).sum(axis=1) / n)
        return {"p_value": float(np.mean(null >= observed - gamma)), "exact": True, "n_resamples": 2**m}
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, n_resamples, BATCH):
        signs = rng.choice(np.array([-1.0, 1.0]), size=(min(BATCH, n_resamples - start), m))
        hits += int(np.sum(np.abs((signs * arr).sum(axis=1) / n) >= observed - gamma))
    return {"p_value": (hits + 1) / (n_resamples + 1), "exact": False, "n_resamples": n_resamples, "seed": seed}


def paired_test(a: Sequence[float], b: Sequence[float], binary: bool, **kw: Any) -> PairedTest:
    """The paired test: exact McNemar for binary per-task outcomes, else the paired t test (and the sign-flip
    permutation test beside it)."""
    d = [y - x for x, y in zip(a, b, strict=True)]
    if binary:
        b_wins = sum(1 for x in d if x > 0)
        a_wins = sum(1 for x in d if x < 0)
        return {"name": "mcnemar_exact", "p_value": sign_test_p(b_wins, a_wins + b_wins), "discordant": a_wins + b_wins}
    perm = sign_flip_p(d, **kw)
    return {"name": "paired_t", "p_value": paired_t_p(d), "permutation": {"name": "sign_flip", **perm}}


def compare_pair(
    a: Sequence[float], b: Sequence[float], binary: bool, seed: int = 0, n_resamples: int = N_RESAMPLES
) -> PairStats:
    """Everything about B - A over ``n`` shared tasks (per-task values in the same order)."""
    n = len(a)
    if n == 0:
        return {"n": 0, "mean_a": None, "mean_b": None, "mean_diff": None, "sd_diff": None, "ci": None}
    d = [y - x for x, y in zip(a, b, strict=True)]
    mean, sd = _mean_sd(d)
    return {
        "n": n,
        "mean_a": sum(a) / n,
        "mean_b": sum(b) / n,
        "mean_diff": mean,
        "sd_diff": sd,
        "ci": t_interval(d),
        "bootstrap": bootstrap_interval(d, seed, n_resamples) if n > 1 else None,
        "test": paired_test(a, b, binary, seed=seed, n_resamples=n_resamples),
    }
