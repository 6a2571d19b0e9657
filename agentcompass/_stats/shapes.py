"""The shapes of the statistics' results: intervals, tests and a paired comparison (docs/statistics.md).
Plain dicts at run time; ``_orchestrator.record.Interval`` is the same interval as the run's record holds it."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class Interval(TypedDict):
    """A figure's 95 % interval over tasks: ``ratio_interval`` / ``mean_interval``."""

    estimate: float | None
    low: float | None
    high: float | None
    se: float | None
    method: str  # wilson | cluster_t | none
    level: float
    n: NotRequired[int]


class DiffInterval(TypedDict):
    """The t interval of a mean paired difference (``t_interval``)."""

    low: float | None
    high: float | None
    se: float | None
    method: str  # cluster_t | none
    level: float


class BootstrapInterval(TypedDict):
    """The seeded paired bootstrap's percentile interval (``bootstrap_interval``)."""

    low: float
    high: float
    method: str
    level: float
    seed: int
    n_resamples: int


class Permutation(TypedDict):
    """The sign-flip permutation test (``sign_flip_p``; ``name`` once reported beside the t test)."""

    name: NotRequired[str]
    p_value: float
    exact: bool
    n_resamples: int
    seed: NotRequired[int]


class PairedTest(TypedDict):
    """The paired test of B - A: exact McNemar (``discordant``) or the paired t test (``permutation``)."""

    name: str  # mcnemar_exact | paired_t
    p_value: float
    discordant: NotRequired[int]
    permutation: NotRequired[Permutation]


class PairStats(TypedDict):
    """Everything about B - A over ``n`` shared tasks (``compare_pair``)."""

    n: int
    mean_a: float | None
    mean_b: float | None
    mean_diff: float | None
    sd_diff: float | None
    ci: DiffInterval | None
    bootstrap: NotRequired[BootstrapInterval | None]
    test: NotRequired[PairedTest]
