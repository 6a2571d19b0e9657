"""``agentcompass run [BENCHMARK] [HARNESS] [MODEL] [options] [key=value ...]`` (``-m``: a sweep)."""

from __future__ import annotations

import argparse

from . import options
from .exits import EXIT_FAILED, EXIT_OK

INTERMIXED = True  # options may come between the positionals


def add_arguments(p: argparse.ArgumentParser) -> None:
    options.add_request_arguments(p)
    p.add_argument("-m", "--multirun", action="store_true", help="sweep comma-separated override values")


def main(args: argparse.Namespace) -> int:
    from agentcompass import _sdk

    kwargs = options.request_kwargs(args)
    if not args.multirun and "run_id" not in kwargs and "reuse" not in kwargs:
        kwargs["run_id"] = args.run_id = _sdk.new_run_id()  # known now: an interrupted run prints it
    if args.multirun:
        from .launch import report

        return report(_sdk.run_sweep(**kwargs))
    result = _sdk.run_evaluation(**kwargs)
    print(_sdk.format_result(result))
    return EXIT_FAILED if result["metrics"]["n_errors"] else EXIT_OK
