"""``agentcompass report RUN_DIR [RUN_DIR ...] [-o report.html]``: a run's Run and Attempt views as one
self-contained file; with several runs of one benchmark also every pair's Compare page."""

from __future__ import annotations

import argparse

from . import options
from .exits import EXIT_OK

INTERMIXED = False


def kib(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--max-attempt-kb {text!r}: an integer number of KiB") from None


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", nargs="+", metavar="RUN_DIR", help="one run directory, or several to compare")
    p.add_argument("-o", "--output", default="report.html", help="output file (default: report.html)")
    p.add_argument(
        "--max-attempt-kb",
        type=kib,
        default=None,
        help="what one attempt may embed, in KiB before compression (default 48)",
    )
    p.add_argument("--log-level", default=None, type=options.log_level, help="console log level")


def main(args: argparse.Namespace) -> int:
    from agentcompass import _sdk

    dirs = args.run_dir if len(args.run_dir) > 1 else args.run_dir[0]
    info = _sdk.write_report(dirs, args.output, max_attempt_kb=args.max_attempt_kb)
    runs = f"{info['runs']} runs, " if info.get("runs", 1) > 1 else ""
    print(
        f"report: {info['path']} ({info['bytes'] / 1024:.0f} KiB, {runs}{info['tasks']} tasks, "
        f"{info['attempts']} attempts)"
    )
    return EXIT_OK
