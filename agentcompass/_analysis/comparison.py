"""The shape of a comparison of runs: what :func:`.compare.compare` returns, ``agentcompass compare --format json``
prints and the viewer's Compare page shows (docs/compare.md). Plain dicts at run time."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from agentcompass._stats.shapes import Interval, PairStats


class CompareMeta(TypedDict):
    """What a compared run is: its names, components and mean reward (from its summary.json and config.yaml)."""

    run_name: str
    run_id: str
    benchmark: str | None
    harness: str | None
    model: str | None
    mean_reward: float | None


class CompareRun(CompareMeta):
    """One compared run, labelled A, B, ..."""

    label: str
    run_dir: str


class TaskSets(TypedDict):
    """The tasks of a comparison: shared, missing, errored and flagged per run, and those analysed."""

    n_all: int
    n_shared: int
    missing: dict[str, list[str]]
    errored: dict[str, list[str]]
    n_excluded: int
    analysed: list[str]
    flagged: dict[str, list[str]]


class BoardRow(TypedDict):
    """A run's row of the leaderboard: its mean over the analysed tasks with its interval, and its rank."""

    label: str
    mean: float | None
    ci: Interval
    samples_per_task: list[int]
    rank: NotRequired[int]


class Power(TypedDict, total=False):
    """A pair's power figures: the smallest difference it detects, and with ``detect`` the tasks or samples
    needed to detect that."""

    alpha: float
    power: float
    test: str
    sd_diff: float | None
    mde: float | None
    detect: float
    tasks_needed: int | None
    samples_needed: int | None
    samples_note: str
    var_between: float
    var_within: float


class Pair(PairStats):
    """One pair of runs, B - A: the paired statistics, the tasks each is better on, power, Holm's p."""

    a: str
    b: str
    binary: bool
    b_better: list[str]
    a_better: list[str]
    power: Power
    p_holm: NotRequired[float]
    significant: NotRequired[bool]


class Comparison(TypedDict):
    """The comparison of two or more runs of one benchmark."""

    version: int
    benchmark: str | None
    errors: str  # excluded | as_zero
    score: str  # reward | clean
    alpha: float
    seed: int
    n_resamples: int
    runs: list[CompareRun]
    tasks: TaskSets
    leaderboard: list[BoardRow]
    pairs: list[Pair]
