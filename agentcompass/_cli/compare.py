"""``agentcompass compare RUN_A RUN_B [RUN_C ...]``: paired comparison of run directories of one benchmark."""

from __future__ import annotations

import argparse

from . import options
from .exits import EXIT_OK

INTERMIXED = True
FORMATS = ("table", "md", "json", "csv")


def difference(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"--detect {text!r}: a difference > 0 in reward units, e.g. 0.02")
    return value


def resamples(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 100:
        raise argparse.ArgumentTypeError(f"--resamples {text!r}: an integer >= 100")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="two or more run directories (A, B, ...)")
    p.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    p.add_argument(
        "--errors-as-zero",
        action="store_true",
        help="score errored tasks 0, as mean_reward does (default: report them apart, leave them out)",
    )
    p.add_argument(
        "--clean",
        action="store_true",
        help="clean scores: a sample the integrity scan flagged scores 0, as resolved_rate_clean counts it",
    )
    p.add_argument("--detect", type=difference, default=None, help="tasks / samples needed to detect this difference")
    p.add_argument("--seed", type=int, default=0, help="seed of the paired bootstrap and permutation test (default: 0)")
    p.add_argument("--resamples", type=resamples, default=10_000, help="bootstrap resamples (default: 10000)")
    p.add_argument("-o", "--output", default=None, help="also write the output to this file")
    p.add_argument("--log-level", default=None, type=options.log_level, help="console log level (DEBUG: tracebacks)")


def main(args: argparse.Namespace) -> int:
    from agentcompass import _sdk

    if len(args.run_dirs) < 2:
        raise options.UsageError(f"compare needs at least two run directories, got {len(args.run_dirs)}")
    comparison = _sdk.compare_runs(
        *args.run_dirs,
        errors_as_zero=args.errors_as_zero,
        seed=args.seed,
        n_resamples=args.resamples,
        detect=args.detect,
        clean=args.clean,
    )
    text = _sdk.format_comparison(comparison, args.format)
    if args.output:
        from pathlib import Path

        Path(args.output).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    print(text.rstrip("\n"))
    return EXIT_OK
