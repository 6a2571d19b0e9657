"""What an interrupted command prints: the command line that resumes the run (``--reuse``)."""

from __future__ import annotations

import argparse
import shlex

_DROP_WITH_VALUE = ("--run-id",)


def resume_command(argv: list[str], args: argparse.Namespace) -> str | None:
    """``agentcompass run ... --reuse <run_id>`` (``launch``: ``... --reuse``) for an interrupted ``argv``;
    None for commands that have no run to resume."""
    if not argv or argv[0] not in ("run", "launch") or getattr(args, "multirun", False):
        return None
    kept, skip = [], False
    consumed_reuse_value = isinstance(getattr(args, "reuse", None), str)
    for token in argv:
        if skip:
            skip = False
            continue
        name = token.split("=", 1)[0]
        if token == "--reuse":
            skip = consumed_reuse_value  # --reuse RUN_ID: the id goes too
            continue
        if name == "--reuse" or (argv[0] == "run" and name in _DROP_WITH_VALUE):
            skip = "=" not in token and name in _DROP_WITH_VALUE
            continue
        kept.append(token)
    run_id = getattr(args, "run_id", None) if argv[0] == "run" else None
    if argv[0] == "run" and isinstance(getattr(args, "reuse", None), str):
        run_id = args.reuse
    return shlex.join(["agentcompass", *kept, "--reuse", *([run_id] if run_id else [])])
