"""Holm's step-down correction of several p-values (family-wise error rate), as statsmodels' ``multipletests``."""

from __future__ import annotations

from collections.abc import Sequence


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the order given: the i-th smallest p times ``m - i + 1``, made monotone and
    capped at 1. A hypothesis is rejected at level alpha when its adjusted p-value is <= alpha."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted
