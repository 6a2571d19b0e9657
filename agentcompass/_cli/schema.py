"""``agentcompass schema [result|row|summary|run]``: the JSON Schema of a run directory's record file.

Without a kind: the kinds, one a line. ``--all`` prints every schema in one JSON object keyed by kind.
"""

from __future__ import annotations

import argparse
import json

from .exits import EXIT_OK

INTERMIXED = True


def add_arguments(p: argparse.ArgumentParser) -> None:
    from agentcompass._sdk.schemas import record_kinds

    kinds = record_kinds()
    p.add_argument("kind", metavar="KIND", nargs="?", choices=tuple(kinds), help=" | ".join(kinds))
    p.add_argument("--all", action="store_true", help="every schema, keyed by kind")


def main(args: argparse.Namespace) -> int:
    from agentcompass._sdk.schemas import record_kinds, record_schema

    kinds = record_kinds()
    if args.all:
        print(json.dumps({kind: record_schema(kind) for kind in kinds}, indent=2))
    elif args.kind:
        print(json.dumps(record_schema(args.kind), indent=2))
    else:
        print("\n".join(f"{kind:<8} {text}" for kind, text in kinds.items()))
    return EXIT_OK
