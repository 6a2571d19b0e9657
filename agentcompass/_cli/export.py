"""``agentcompass export FORMAT RUN_DIR OUT_DIR``: a run directory in another tool's layout (harbor: a Harbor job)."""

from __future__ import annotations

import argparse

from . import options
from .exits import EXIT_OK

INTERMIXED = False
FORMATS = ("harbor",)  # agentcompass._sdk.EXPORT_FORMATS (not imported here: the parser loads nothing heavy)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("format", choices=FORMATS, help="harbor: Harbor's job layout (harbor view OUT_DIR)")
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run directory to export")
    p.add_argument("out_dir", metavar="OUT_DIR", help="where to write the exported job")
    p.add_argument("--log-level", default=None, type=options.log_level, help="console log level")


def main(args: argparse.Namespace) -> int:
    from agentcompass import _sdk

    print(f"harbor job: {_sdk.export(args.format, args.run_dir, args.out_dir)}")
    return EXIT_OK
