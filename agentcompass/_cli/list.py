"""``agentcompass list benchmarks|harnesses|environments|models`` and ``agentcompass list tasks BENCHMARK``.

Components: id, one-line description, where the data comes from (benchmarks) or the class, and a benchmark's
task count when known (cached after a load); a published agent program (harnesses) shows its pinned version, the
model APIs it speaks and whether its build is cached (``not fetched``: the first run fetches it with
``--auto-install-dependencies``). ``tasks``: the task ids of one benchmark, one a line.
``--json`` prints the same as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcompass._sdk.catalogue import ComponentRow

from . import options
from .exits import EXIT_OK, EXIT_USAGE

INTERMIXED = True
KINDS = ("benchmarks", "harnesses", "environments", "models", "tasks")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("kind", metavar="KIND", choices=KINDS, help=" | ".join(KINDS))
    p.add_argument("benchmark", metavar="BENCHMARK", nargs="?", help="with `tasks`: the benchmark id")
    p.add_argument(
        "--benchmark-params",
        type=options.json_object(),
        default=None,
        metavar="JSON",
        help="with `tasks`: merged into the benchmark's config, as for `run` (e.g. a dataset_path or a split)",
    )
    p.add_argument("--data-dir", default=None, help="data and cache root (as for `run`)")
    p.add_argument("--json", action="store_true", help="print JSON")


def _cell(row: ComponentRow, head: str) -> str:
    if head == "tasks":
        return "-" if row.get("n_tasks") is None else str(row["n_tasks"])
    if head == "version":
        return str(row.get("version") or "-")
    if head == "protocols":
        return ",".join(row.get("protocols") or []) or "-"
    if head == "build":
        return {True: "cached", False: "not fetched", None: "-"}[row.get("cached")]
    return str(row.get(head))  # id, source, description: every row has them


def _table(rows: list[ComponentRow], kind: str) -> str:
    heads = {
        "benchmarks": ["id", "tasks", "source", "description"],
        "harnesses": ["id", "version", "protocols", "build", "description"],
    }.get(kind, ["id", "source", "description"])
    cells = [[_cell(r, h) for h in heads] for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h) for i, h in enumerate(heads)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths[:-1]) + "  {}"
    return "\n".join(fmt.format(*row) for row in [heads, *cells])


def main(args: argparse.Namespace) -> int:
    from agentcompass import _sdk

    if args.kind == "tasks":
        if not args.benchmark:
            print(
                "agentcompass list: error: `list tasks` needs a BENCHMARK id (see 'agentcompass list --help')",
                file=sys.stderr,
            )
            return EXIT_USAGE
        ids = _sdk.list_tasks(args.benchmark, benchmark_params=args.benchmark_params, data_dir=args.data_dir)
        print(json.dumps(ids) if args.json else "\n".join(ids))
        return EXIT_OK
    if args.benchmark or args.benchmark_params:
        print(f"agentcompass list: error: `list {args.kind}` takes no BENCHMARK or --benchmark-params", file=sys.stderr)
        return EXIT_USAGE
    rows = _sdk.list_components(args.kind, data_dir=args.data_dir)
    print(json.dumps(rows, indent=1) if args.json else _table(rows, args.kind))
    return EXIT_OK
