"""Power of the paired t test on per-task differences (noncentral t, as statsmodels' ``TTestPower``): the minimum
detectable difference, the tasks needed to detect a difference, and the samples per task needed when repeated
samples can shrink the variance of the per-task differences."""

from __future__ import annotations

import math

from .dist import nct_cdf, nct_sf, norm_ppf, t_ppf

ALPHA = 0.05
POWER = 0.8
MAX_SAMPLES = 10_000


def paired_power(effect: float, n: float, alpha: float = ALPHA) -> float:
    """Power of the two-sided paired t test at level ``alpha`` for ``n`` tasks and a standardized effect
    (mean difference over the standard deviation of the per-task differences)."""
    df = n - 1
    crit = t_ppf(1 - alpha / 2, df)
    nc = effect * math.sqrt(n)
    return nct_sf(crit, df, nc) + nct_cdf(-crit, df, nc)


def mde(n: int, sd: float, alpha: float = ALPHA, power: float = POWER) -> float | None:
    """The smallest difference the paired t test detects with probability ``power`` over ``n`` tasks whose
    per-task differences have standard deviation ``sd``; None for fewer than two tasks or ``sd == 0``."""
    if n < 2 or not sd > 0:
        return None
    lo, hi = 0.0, (norm_ppf(1 - alpha / 2) + norm_ppf(power)) / math.sqrt(n)
    while paired_power(hi, n, alpha) < power:
        lo, hi = hi, hi * 2
    f_lo, f_hi = paired_power(lo, n, alpha) - power, paired_power(hi, n, alpha) - power
    for _ in range(200):  # regula falsi (Illinois): the root of power(effect) = power, bracketed
        mid = hi - f_hi * (hi - lo) / (f_hi - f_lo)
        f_mid = paired_power(mid, n, alpha) - power
        if abs(f_mid) < 1e-14 or hi - lo <= 1e-14 * hi:
            return mid * sd
        if (f_mid < 0) == (f_lo < 0):
            lo, f_lo, f_hi = mid, f_mid, f_hi / 2
        else:
            hi, f_hi, f_lo = mid, f_mid, f_lo / 2
    return hi * sd


def tasks_needed(diff: float, sd: float, alpha: float = ALPHA, power: float = POWER) -> int | None:
    """The fewest tasks with which the paired t test detects a true difference ``diff`` with probability
    ``power`` (per-task differences of standard deviation ``sd``); None when ``sd == 0`` or ``diff == 0``."""
    if not sd > 0 or diff == 0:
        return None
    effect = abs(diff) / sd
    guess = max(2, math.ceil(((norm_ppf(1 - alpha / 2) + norm_ppf(power)) / effect) ** 2))
    lo, hi = 1, guess  # power(lo) < target <= power(hi)
    while paired_power(effect, hi, alpha) < power:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid >= 2 and paired_power(effect, mid, alpha) >= power:
            hi = mid
        else:
            lo = mid
    return hi


def samples_needed(
    diff: float, n: int, var_between: float, var_within: float, alpha: float = ALPHA, power: float = POWER
) -> int | None:
    """The fewest samples per task (in both runs) with which ``n`` tasks detect ``diff``: the variance of a
    per-task difference is ``var_between + var_within / k`` (``var_within``: the two runs' within-task sample
    variances added). None when no number of samples is enough (more tasks are needed) or nothing varies."""
    if n < 2 or diff == 0 or var_between + var_within <= 0:
        return None
    floor = mde(n, math.sqrt(var_between), alpha, power) if var_between > 0 else 0.0
    if floor is not None and floor >= abs(diff):
        return None
    lo, hi = 0, 1
    while (mde(n, math.sqrt(var_between + var_within / hi), alpha, power) or 0.0) > abs(diff):
        lo, hi = hi, hi * 2
        if hi > MAX_SAMPLES:
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if (mde(n, math.sqrt(var_between + var_within / mid), alpha, power) or 0.0) > abs(diff):
            lo = mid
        else:
            hi = mid
    return hi
