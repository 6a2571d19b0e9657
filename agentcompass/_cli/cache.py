"""``agentcompass cache stats | prune | clear``: the model-response cache under the data dir (docs/cache.md)."""

from __future__ import annotations

import argparse
import json

from . import options
from .exits import EXIT_OK

INTERMIXED = False


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("stats", "prune", "clear"), help="show, shrink or empty the cache")
    p.add_argument("--data-dir", default=None, help="the data dir (default: $AGENTCOMPASS_DATA_DIR, else per user)")
    p.add_argument("--older-than", default=None, metavar="DURATION", help="prune: entries older than this ('7d')")
    p.add_argument("--max-mb", type=float, default=None, help="prune: least recently used entries past this size")
    p.add_argument("--json", action="store_true", help="stats: print JSON")
    p.add_argument("--log-level", default=None, type=options.log_level, help="console log level")


def main(args: argparse.Namespace) -> int:
    from agentcompass import _sdk

    if args.action == "stats":
        stats = _sdk.cache_stats(args.data_dir)
        print(json.dumps(stats, indent=2) if args.json else _sdk.format_cache_stats(stats))
    elif args.action == "prune":
        n = _sdk.cache_prune(args.data_dir, older_than=args.older_than, max_mb=args.max_mb)
        print(f"pruned {n} cache entries")
    else:
        print(f"cleared {_sdk.cache_clear(args.data_dir)} cache entries")
    return EXIT_OK
