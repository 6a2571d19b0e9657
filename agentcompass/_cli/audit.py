"""``agentcompass audit BENCHMARK [--repeats N] [--env ID]``: the oracle N times and nop once on every task; the
tasks whose oracle fails, whose oracle is flaky, or that nop passes, with their verifier output (``--json``).
``--exploits``: instead, every exploit of the ``exploit`` harness against every task; the hackable tasks, whether
the integrity scan flagged each, and ``hackable_rate`` (``--no-hardening``: with every hardening off)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from . import options
from .exits import EXIT_FAILED, EXIT_OK

INTERMIXED = True


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("benchmark", metavar="BENCHMARK", help="the benchmark id (`agentcompass list benchmarks`)")
    p.add_argument("--repeats", type=int, default=3, help="oracle runs per task (default 3)")
    p.add_argument("--env", dest="environment", default=None, help="environment id (default: the config's)")
    p.add_argument(
        "--benchmark-params",
        type=options.json_object(),
        default=None,
        metavar="JSON",
        help="merged into the benchmark's config, as for `run`",
    )
    p.add_argument(
        "--env-params",
        type=options.json_object(),
        default=None,
        metavar="JSON",
        help="merged into the environment's config, as for `run`",
    )
    p.add_argument("--task-concurrency", type=int, default=None, help="attempts at once (default: the schema's)")
    p.add_argument(
        "--max-retries", type=int, default=None, help="retries of an attempt after an error (default: the schema's)"
    )
    p.add_argument("--results-dir", default=None, help="where the audit's runs are written (default: the schema's)")
    p.add_argument("--data-dir", default=None, help="data and cache root (as for `run`)")
    p.add_argument(
        "--progress", default="none", choices=("auto", "plain", "none"), help="progress display (default none)"
    )
    p.add_argument("--log-level", default="WARNING", type=options.log_level, help="console log level (default WARNING)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--exploits", action="store_true", help="run the exploit library against every task (docs/integrity.md)"
    )
    p.add_argument(
        "--exploit", action="append", default=None, metavar="NAME", help="with --exploits: only this exploit (repeat)"
    )
    p.add_argument(
        "--no-hardening",
        dest="hardening",
        action="store_false",
        help="with --exploits: turn every hardening off, so that the exploits succeed where they can",
    )


def main(args: argparse.Namespace) -> int:
    """Exit 0 when no task has a problem (with --exploits: no task is hackable), 1 when some do."""
    from agentcompass import _sdk

    if args.exploits:
        return _exploits(args)

    report = _sdk.audit(args.benchmark, repeats=args.repeats, max_retries=args.max_retries, **_run_options(args))
    print(json.dumps(report.to_dict(), indent=1) if args.json else _sdk.format_audit(report))
    return EXIT_FAILED if report.findings else EXIT_OK


def _run_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options both audits take from the command line."""
    return {
        "environment": args.environment,
        "benchmark_params": args.benchmark_params,
        "environment_params": args.env_params,
        "task_concurrency": args.task_concurrency,
        "results_dir": args.results_dir,
        "data_dir": args.data_dir,
        "progress": args.progress,
        "log_level": args.log_level,
    }


def _exploits(args: argparse.Namespace) -> int:
    from agentcompass import _sdk

    report = _sdk.audit_exploits(args.benchmark, exploits=args.exploit, hardening=args.hardening, **_run_options(args))
    print(json.dumps(report.to_dict(), indent=1) if args.json else _sdk.format_exploit_audit(report))
    return EXIT_FAILED if report.hackable else EXIT_OK
