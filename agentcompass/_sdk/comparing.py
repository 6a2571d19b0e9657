"""``compare_runs``: paired comparison of run directories of one benchmark (``agentcompass compare``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcompass._analysis.comparison import Comparison


def compare_runs(
    *run_dirs: str | Path,
    errors_as_zero: bool = False,
    seed: int = 0,
    n_resamples: int = 10_000,
    detect: float | None = None,
    clean: bool = False,
) -> Comparison:
    """Compare two or more run directories (labelled A, B, ... in the order given) on the tasks they share.

    Returns ``{benchmark, errors, alpha, seed, n_resamples, runs, tasks, leaderboard, pairs}``: per run its mean
    over the analysed tasks with a 95 % interval; per pair (B - A) the mean difference with its task-clustered t
    interval and a seeded paired bootstrap interval, the paired test's p-value (exact McNemar for binary per-task
    outcomes, else paired t, with the sign-flip permutation test beside it), the Holm-adjusted p-value, the tasks
    each run is better on, and the power (the difference detectable with 80 % power; with ``detect``, the tasks
    and samples per task needed to detect it). Tasks that errored in a run are left out unless
    ``errors_as_zero``. With ``clean``, a sample the integrity scan flagged (suspect or hack) scores 0, as
    ``resolved_rate_clean`` counts it (``score: "clean"``; a run never scanned is a ``ConfigError``). Bad input
    (not a run directory, runs of different benchmarks) is a ``ConfigError``.
    See ``docs/statistics.md``.
    """
    from agentcompass._analysis.compare import compare_runs as build

    return build(
        list(run_dirs), errors_as_zero=errors_as_zero, seed=seed, n_resamples=n_resamples, detect=detect, clean=clean
    )


def format_comparison(comparison: Comparison, fmt: str = "table") -> str:
    """The comparison as ``table`` (text), ``md``, ``json`` or ``csv`` (one row per pair)."""
    from agentcompass._analysis.compare_render import FORMATS, render

    if fmt not in FORMATS:
        from agentcompass.errors import ConfigError

        raise ConfigError(f"--format {fmt!r}: one of {', '.join(FORMATS)}")
    return render(comparison, fmt)
