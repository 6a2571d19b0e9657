"""``agentcompass cleanup [--run-id ID] [--env ID]``: remove environments left behind by killed runs."""

from __future__ import annotations

import argparse

from . import options
from .exits import EXIT_OK

INTERMIXED = False


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--run-id", default=None, help="only this run's environments")
    p.add_argument("--env", default="docker", help="environment provider id (default: docker)")
    p.add_argument("--log-level", default=None, type=options.log_level, help="console log level")


def main(args: argparse.Namespace) -> int:
    from agentcompass import _sdk

    removed = _sdk.cleanup(args.env, args.run_id)
    print(f"removed {removed} {args.env} environment(s)" + (f" of run {args.run_id}" if args.run_id else ""))
    return EXIT_OK
