"""``agentcompass view [RESULTS_DIR_OR_RUN_DIR ...] [--host H] [--port P]``: a read-only local web viewer."""

from __future__ import annotations

import argparse

from . import options
from .exits import EXIT_OK

INTERMIXED = False


def port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--port {text!r}: an integer 0-65535 (0 = a free port)") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"--port {value}: must be 0-65535 (0 = a free port)")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="*",
        metavar="RESULTS_DIR_OR_RUN_DIR",
        default=["outputs"],
        help="results directories or run directories (default: outputs)",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1; any other address is reachable by others)",
    )
    p.add_argument("--port", type=port, default=0, help="port (default 0: a free port, printed)")
    p.add_argument("--log-level", default=None, type=options.log_level, help="console log level")


def main(args: argparse.Namespace) -> int:
    from agentcompass import _sdk

    _sdk.serve_view(args.paths, host=args.host, port=args.port)
    return EXIT_OK
