"""``agentcompass scan RUN_DIR``: the integrity scan of an existing run directory and its optional LLM review
(docs/integrity.md)."""

from __future__ import annotations

import argparse
from typing import Any

from .exits import EXIT_OK
from .options import json_object

INTERMIXED = False


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run directory to scan (holding results.jsonl)")
    p.add_argument("--max-flags", type=int, default=3, metavar="N", help="flags printed per attempt (default 3)")
    p.add_argument(
        "--review",
        action="store_true",
        help="then review the flagged attempts and a sample of clean resolved ones with the --judge model",
    )
    p.add_argument(
        "--judge",
        metavar="MODEL",
        help="the judge: a conf/model id or a model name (with --judge-params for its endpoint)",
    )
    p.add_argument(
        "--judge-params",
        type=json_object(),
        metavar="JSON",
        help='the judge model\'s fields, e.g. {"base_url": ..., "api_key": ..., "api_protocol": ..., "prices": ...}',
    )
    p.add_argument("--rubric", metavar="FILE", help="a rubric file replacing the built-in one")
    p.add_argument("--sample", type=int, metavar="N", help="clean resolved attempts reviewed (default 5)")
    p.add_argument("--seed", type=int, metavar="N", help="seed of that sample (default 0)")


def _judge(args: argparse.Namespace) -> dict[str, Any] | None:
    from agentcompass.errors import ConfigError

    if not args.review:
        return None
    if not args.judge:
        raise ConfigError("--review needs --judge MODEL (a conf/model id or a model name)")
    return {**(args.judge_params or {}), "id": args.judge}


def main(args: argparse.Namespace) -> int:
    from agentcompass import _sdk

    judge = _judge(args)
    params = {k: v for k, v in (("rubric", args.rubric), ("sample", args.sample), ("seed", args.seed)) if v is not None}
    report = _sdk.scan_run(args.run_dir, review=bool(judge), judge=judge, review_params=params)
    print(_sdk.format_scan(report, max_flags=args.max_flags))
    return EXIT_OK
