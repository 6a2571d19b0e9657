"""95 % intervals of a run's headline figures, over tasks (the samples of one task are not independent).

A figure is a ratio ``sum(y_i) / sum(m_i)`` over tasks ``i``: ``y_i`` the task's total (rewards, passes) and
``m_i`` its number of samples (1 for a per-task figure such as pass@k). Its interval is

- ``wilson``: the Wilson score interval over tasks, when every task's outcome is binary (``y_i`` is 0 or ``m_i``)
  and every task has the same number of samples: the figure is then the share of tasks that passed;
- ``cluster_t``: otherwise, the figure plus / minus ``t(0.975, G - 1)`` task-clustered standard errors,
  ``se = sqrt(G / (G - 1) * sum((y_i - figure * m_i) ** 2)) / sum(m_i)`` over the ``G`` tasks (the cluster-robust
  standard error of a mean, as statsmodels' OLS with ``cov_type="cluster"``; with equal ``m_i`` it is the standard
  deviation of the per-task means over sqrt(G)); clipped to ``bounds`` when the figure is a proportion;
- ``none``: fewer than two tasks (no interval).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .dist import norm_ppf, t_ppf
from .shapes import Interval

LEVEL = 0.95


def wilson(successes: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` out of ``n`` independent trials."""
    z = norm_ppf(0.5 + level / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def clustered_se(totals: Sequence[float], sizes: Sequence[float]) -> float | None:
    """The task-clustered standard error of ``sum(totals) / sum(sizes)``; None for fewer than two tasks."""
    g = len(totals)
    if g < 2:
        return None
    m = sum(sizes)
    est = sum(totals) / m
    return math.sqrt(g / (g - 1) * sum((y - est * s) ** 2 for y, s in zip(totals, sizes, strict=True))) / m


def _is_binary(totals: Sequence[float], sizes: Sequence[float]) -> bool:
    return len(set(sizes)) == 1 and all(y == 0 or y == s for y, s in zip(totals, sizes, strict=True))


def ratio_interval(
    totals: Sequence[float],
    sizes: Sequence[float],
    *,
    bounds: tuple[float, float] | None = None,
    level: float = LEVEL,
) -> Interval:
    """``{estimate, low, high, se, method, level, n}`` of ``sum(totals) / sum(sizes)`` over ``n`` tasks."""
    g = len(totals)
    if g == 0 or sum(sizes) == 0:
        return {"estimate": None, "low": None, "high": None, "se": None, "method": "none", "level": level, "n": g}
    est = sum(totals) / sum(sizes)
    se = clustered_se(totals, sizes)
    out: Interval = {"estimate": est, "low": None, "high": None, "se": se, "method": "none", "level": level}
    if _is_binary(totals, sizes):
        out["low"], out["high"] = wilson(sum(1 for y in totals if y), g, level)
        out["method"] = "wilson"
    elif se is not None:
        half = t_ppf(0.5 + level / 2, g - 1) * se
        low, high = est - half, est + half
        if bounds is not None:
            low, high = max(bounds[0], low), min(bounds[1], high)
        out["low"], out["high"], out["method"] = low, high, "cluster_t"
    out["n"] = g
    return out


def mean_interval(values: Sequence[float], *, bounds: tuple[float, float] | None = None) -> Interval:
    """The interval of the plain mean of per-task values (one value per task)."""
    return ratio_interval(list(values), [1] * len(values), bounds=bounds)


def _round(value: float | None, digits: int) -> float | None:
    return round(value, digits) if isinstance(value, float) else value


def rounded(interval: Interval, digits: int = 6) -> Interval:
    """The interval with its numbers rounded (for summaries)."""
    out = interval.copy()
    out["estimate"], out["low"] = _round(interval["estimate"], digits), _round(interval["low"], digits)
    out["high"], out["se"] = _round(interval["high"], digits), _round(interval["se"], digits)
    out["level"] = round(interval["level"], digits) if isinstance(interval["level"], float) else interval["level"]
    return out
