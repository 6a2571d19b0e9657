"""``agentcompass launch ORCHESTRATION_PATH``: several named requests sharing one attempt pool."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from . import options
from .exits import EXIT_BUDGET, EXIT_FAILED, EXIT_OK, EXIT_TIMEOUT, EXIT_USAGE

INTERMIXED = False


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "orchestration",
        metavar="ORCHESTRATION_PATH",
        help="a YAML or JSON file: version, name, task_concurrency, runtime, defaults, requests",
    )
    options.add_table_arguments(p, "launch")
    p.add_argument("--run-id", default=None, help="every request's output.run_id")
    p.add_argument(
        "--reuse",
        action="store_true",
        default=None,
        help="defaults.runtime.reuse: true (a request may still say reuse: false)",
    )
    p.add_argument("--dry-run", action="store_true", help="validate, print each resolved request; run nothing")


def main(args: argparse.Namespace) -> int:
    from agentcompass import _sdk
    from agentcompass.errors import RunTimeoutError

    keywords = options.table_kwargs(args, "launch")
    config_path = keywords.pop("config_path", None)
    orch = _sdk.resolve_file(
        args.orchestration,
        run_id=args.run_id,
        reuse=bool(args.reuse),
        config_path=config_path,
        settings=_sdk.LaunchSettings(caller="launch", **keywords),
    )
    if args.dry_run:
        return print_preflight(_sdk.dry_run(orch))
    try:
        result = _sdk.launch(orch)
    except RunTimeoutError as exc:
        report(exc.result)
        print(f"agentcompass: error: {_sdk.error_message(exc)}", file=sys.stderr)
        return EXIT_TIMEOUT
    return report(result)


def print_preflight(preflight: Any) -> int:
    import yaml

    for req in preflight.requests:
        print(f"--- request {req.name}")
        if req.error is not None:
            print(f"error: {req.error}")
            continue
        print(f"tasks: {req.n_tasks}\noutput: {req.output}")
        print(yaml.safe_dump(req.config, sort_keys=False), end="")
    print(
        f"--- {len(preflight.requests)} requests, task_concurrency {preflight.task_concurrency}: "
        + ("valid" if preflight.ok else "INVALID")
    )
    return EXIT_OK if preflight.ok else EXIT_USAGE


def report(result: Any) -> int:
    from agentcompass import _sdk
    from agentcompass.interfaces import RunStatus

    body, footer = _sdk.format_orchestration(result)
    print(body)
    print(footer, file=sys.stderr)
    if result.status == RunStatus.COMPLETED:
        return EXIT_OK
    others = {o.status for o in result.requests.values()} - {RunStatus.COMPLETED}
    return EXIT_BUDGET if others == {RunStatus.STOPPED_BUDGET} else EXIT_FAILED
