"""``agentcompass scan RUN_DIR``: the integrity scan of an existing run directory (docs/integrity.md)."""

from __future__ import annotations

import argparse

from .exits import EXIT_OK

INTERMIXED = False


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run directory to scan (holding results.jsonl)")
    p.add_argument("--max-flags", type=int, default=3, metavar="N", help="flags printed per attempt (default 3)")


def main(args: argparse.Namespace) -> int:
    from agentcompass import _sdk

    print(_sdk.format_scan(_sdk.scan_run(args.run_dir), max_flags=args.max_flags))
    return EXIT_OK
