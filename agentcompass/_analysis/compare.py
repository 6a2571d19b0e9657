"""``compare_runs``: is run B better than run A? Paired comparisons of run directories of one benchmark.

A task's outcome in a run is the mean score of its samples (``metrics.scored``: the reward when it counts, else
0). A task *errored* in a run when one of its samples has no counted reward (the run's own metric decides what
counts, e.g. a reward verified after an agent timeout does); errored tasks are reported apart and left out of
every paired figure, unless ``errors_as_zero`` (then they score 0, as ``mean_reward`` counts them). All figures
are over one task set: the tasks every run has, less the excluded ones. The statistics are ``agentcompass._stats``
(``docs/statistics.md``); the viewer's Compare page and ``agentcompass compare`` both call :func:`compare`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from agentcompass._orchestrator.metrics import by_task, reward_counts, scored
from agentcompass._orchestrator.record import CONFIG_FILE, RESULTS_FILE, ResultRow, RunMetadata, RunMetrics, RunStore
from agentcompass._stats import power
from agentcompass._stats.intervals import mean_interval
from agentcompass._stats.multiple import holm
from agentcompass._stats.paired import N_RESAMPLES, compare_pair
from agentcompass._stats.shapes import PairStats
from agentcompass.errors import ConfigError
from agentcompass.interfaces import AttemptStatus

from .comparison import BoardRow, CompareMeta, Comparison, Pair, Power, TaskSets

ALPHA = 0.05
LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass
class RunScores:
    """One run's per-task outcomes: mean score, whether it errored, within-task variance, attempt paths."""

    label: str
    run_dir: str
    meta: CompareMeta
    value: dict[str, float] = field(default_factory=dict)
    errored: dict[str, bool] = field(default_factory=dict)
    n_samples: dict[str, int] = field(default_factory=dict)
    within_var: dict[str, float] = field(default_factory=dict)
    attempts: dict[str, list[str]] = field(default_factory=dict)
    flagged: dict[str, int] = field(default_factory=dict)  # samples the integrity scan flagged (suspect or hack)


def _config(store: RunStore) -> dict[str, Any]:
    import yaml

    try:
        data = yaml.safe_load((store.run_dir / CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def _meta(store: RunStore) -> CompareMeta:
    summary = store.read_summary()
    md: RunMetadata | None = (summary.get("metadata") if summary else None) or None
    metrics: RunMetrics | None = (summary.get("metrics") if summary else None) or None
    cfg = _config(store)
    comp = {g: (cfg.get(g) or {}).get("id") if isinstance(cfg.get(g), dict) else None for g in ("benchmark", "harness")}
    model = (md.get("model") if md else None) or (cfg.get("model") or {}).get("id")
    return {
        "run_name": store.run_dir.parent.name,
        "run_id": store.run_dir.name,
        "benchmark": (md.get("benchmark") if md else None) or comp["benchmark"],
        "harness": (md.get("harness") if md else None) or comp["harness"],
        "model": model.get("id") if isinstance(model, dict) else model,
        "mean_reward": metrics.get("mean_reward") if metrics else None,
    }


def flagged(row: ResultRow) -> bool:
    """The integrity scan flagged this sample (suspect or hack; docs/integrity.md)."""
    integrity = row.get("integrity")
    return (integrity.get("verdict") if integrity else None) in ("suspect", "hack")


def scores_from_rows(
    label: str, run_dir: str, meta: CompareMeta, rows: list[ResultRow], clean: bool = False
) -> RunScores:
    """A run's per-task outcomes from its rows; with ``clean`` a flagged sample scores 0 (``resolved_rate_clean``
    counts it a failure); a ConfigError when no row carries an integrity verdict (the run was never scanned)."""
    if clean and rows and not any(r.get("integrity") for r in rows):
        raise ConfigError(
            f"{run_dir}: no integrity verdicts, so it has no clean scores; scan it first (agentcompass scan RUN_DIR)"
        )
    out = RunScores(label, run_dir, meta)
    for task, samples in by_task(rows).items():
        values = [0.0 if clean and flagged(r) else scored(r) for r in samples]
        out.flagged[task] = sum(1 for r in samples if flagged(r))
        n = len(values)
        mean = sum(values) / n
        out.value[task], out.n_samples[task] = mean, n
        out.errored[task] = not all(reward_counts(r) for r in samples)
        out.within_var[task] = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else math.nan
        out.attempts[task] = [str(r.get("attempt_dir") or "") for r in samples]
    return out


def load_scores(run_dir: str | Path, label: str, clean: bool = False) -> RunScores:
    """A run directory's per-task outcomes; a ConfigError (one line) when it is not a run directory."""
    path = Path(run_dir).expanduser()
    store = RunStore.at(path.resolve())
    if not store.results_path.is_file():
        raise ConfigError(
            f"{str(run_dir)!r} is not a run directory: it has no {RESULTS_FILE} "
            "(give <results_dir>/<run_name>/<run_id>)"
        )
    found = store.finished_rows(strict=True).values()
    rows: list[ResultRow] = [{"sample": 1, "status": AttemptStatus.ERROR, "reward": None, **r} for r in found]
    return scores_from_rows(label, str(store.run_dir), _meta(store), rows, clean)


def _check_benchmarks(runs: list[RunScores]) -> str | None:
    names = {r.meta.get("benchmark") for r in runs}
    if len(names) > 1:
        listing = ", ".join(f"{r.label} {os.path.basename(r.run_dir)} ({r.meta.get('benchmark')})" for r in runs)
        raise ConfigError(f"runs of different benchmarks cannot be compared: {listing}")
    return next(iter(names))


def _task_sets(runs: list[RunScores], errors_as_zero: bool) -> TaskSets:
    every = set().union(*(r.value for r in runs))
    shared = set.intersection(*(set(r.value) for r in runs))
    errored = {r.label: sorted(t for t in shared if r.errored[t]) for r in runs}
    excluded = set() if errors_as_zero else {t for ts in errored.values() for t in ts}
    return {
        "n_all": len(every),
        "n_shared": len(shared),
        "missing": {r.label: sorted(every - set(r.value)) for r in runs},
        "errored": errored,
        "n_excluded": len(excluded),
        "analysed": sorted(shared - excluded),
        "flagged": {r.label: sorted(t for t in shared if r.flagged.get(t)) for r in runs},
    }


@dataclass(frozen=True)
class _Options:
    seed: int
    n_resamples: int
    detect: float | None


def _within(run: RunScores, tasks: list[str]) -> tuple[float, float] | None:
    """(mean within-task variance, mean samples per task) over ``tasks``; None without repeated samples."""
    if not tasks or any(run.n_samples[t] < 2 for t in tasks):
        return None
    return sum(run.within_var[t] for t in tasks) / len(tasks), sum(run.n_samples[t] for t in tasks) / len(tasks)


def _power(pair: PairStats, a: RunScores, b: RunScores, tasks: list[str], detect: float | None) -> Power:
    n, sd = pair["n"], pair["sd_diff"]
    out: Power = {"alpha": ALPHA, "power": power.POWER, "test": "paired_t", "sd_diff": sd}
    out["mde"] = power.mde(n, sd) if sd is not None else None
    if detect is None:
        return out
    out["detect"] = detect
    out["tasks_needed"] = power.tasks_needed(detect, sd) if sd else None
    wa, wb = _within(a, tasks), _within(b, tasks)
    if wa is None or wb is None or sd is None:
        out["samples_needed"], out["samples_note"] = None, "needs runs with at least 2 samples per task (-k)"
        return out
    between = max(0.0, sd * sd - wa[0] / wa[1] - wb[0] / wb[1])
    out["var_between"], out["var_within"] = between, wa[0] + wb[0]
    out["samples_needed"] = power.samples_needed(detect, n, between, wa[0] + wb[0])
    if out["samples_needed"] is None:
        out["samples_note"] = "more samples per task cannot reach it with these tasks: more tasks are needed"
    return out


def _pair(a: RunScores, b: RunScores, tasks: list[str], opts: _Options) -> Pair:
    va, vb = [a.value[t] for t in tasks], [b.value[t] for t in tasks]
    binary = all(v in (0.0, 1.0) for v in va + vb)
    stats = compare_pair(va, vb, binary, seed=opts.seed, n_resamples=opts.n_resamples)
    out: Pair = {"a": a.label, "b": b.label, "binary": binary, "n": stats["n"], "mean_a": stats["mean_a"],
                 "mean_b": stats["mean_b"], "mean_diff": stats["mean_diff"], "sd_diff": stats["sd_diff"],
                 "ci": stats["ci"], "b_better": [], "a_better": [], "power": {}}  # fmt: skip
    del out["b_better"], out["a_better"], out["power"]  # set again below: after bootstrap and test, as written
    if "bootstrap" in stats:
        out["bootstrap"] = stats["bootstrap"]
    if "test" in stats:
        out["test"] = stats["test"]
    out["b_better"] = [t for t, x, y in zip(tasks, va, vb, strict=True) if y > x]
    out["a_better"] = [t for t, x, y in zip(tasks, va, vb, strict=True) if y < x]
    out["power"] = _power(stats, a, b, tasks, opts.detect)
    return out


def compare(
    runs: list[RunScores],
    *,
    errors_as_zero: bool = False,
    seed: int = 0,
    n_resamples: int = N_RESAMPLES,
    detect: float | None = None,
    clean: bool = False,
) -> Comparison:
    """The comparison of two or more runs (``RunScores``, in the order given: A, B, ...); ``clean`` only labels the
    result (``score``): the runs' scores were made with it (:func:`scores_from_rows`)."""
    if len(runs) < 2:
        raise ConfigError(f"compare needs at least two run directories, got {len(runs)}")
    if detect is not None and not detect > 0:
        raise ConfigError(f"--detect {detect}: must be a difference > 0 (in reward units, e.g. 0.02)")
    if n_resamples < 100:
        raise ConfigError(f"--resamples {n_resamples}: must be at least 100")
    benchmark = _check_benchmarks(runs)
    sets = _task_sets(runs, errors_as_zero)
    tasks = sets["analysed"]
    opts = _Options(seed, n_resamples, detect)
    pairs = [_pair(a, b, tasks, opts) for a, b in combinations(runs, 2)]
    tested = [p for p in pairs if p.get("test")]
    for p, adj in zip(tested, holm([p["test"]["p_value"] for p in tested]), strict=True):
        p["p_holm"], p["significant"] = adj, adj <= ALPHA
    board = [_board_row(r, tasks) for r in runs]
    for rank, row in enumerate(sorted(board, key=lambda x: -(x["mean"] if x["mean"] is not None else -math.inf)), 1):
        row["rank"] = rank
    return {
        "version": 1,
        "benchmark": benchmark,
        "errors": "as_zero" if errors_as_zero else "excluded",
        "score": "clean" if clean else "reward",
        "alpha": ALPHA,
        "seed": seed,
        "n_resamples": n_resamples,
        "runs": [{"label": r.label, "run_dir": r.run_dir, **r.meta} for r in runs],
        "tasks": sets,
        "leaderboard": sorted(board, key=lambda x: x["rank"]),
        "pairs": pairs,
    }


def _board_row(run: RunScores, tasks: list[str]) -> BoardRow:
    ci = mean_interval([run.value[t] for t in tasks], bounds=None)
    samples = sorted({run.n_samples[t] for t in tasks})
    return {"label": run.label, "mean": ci["estimate"], "ci": ci, "samples_per_task": samples}


def compare_runs(
    run_dirs: list[str | Path],
    *,
    errors_as_zero: bool = False,
    seed: int = 0,
    n_resamples: int = N_RESAMPLES,
    detect: float | None = None,
    clean: bool = False,
) -> Comparison:
    """:func:`compare` over run directories (labelled A, B, ... in the order given); with ``clean``, a sample the
    integrity scan flagged scores 0."""
    if len(run_dirs) > len(LABELS):
        raise ConfigError(f"compare takes at most {len(LABELS)} run directories, got {len(run_dirs)}")
    runs = [load_scores(d, LABELS[i], clean) for i, d in enumerate(run_dirs)]
    return compare(runs, errors_as_zero=errors_as_zero, seed=seed, n_resamples=n_resamples, detect=detect, clean=clean)
