"""``agentcompass images build-base [--tag T] [--mirror URL] [--rebuild]``: build the offline base image."""

from __future__ import annotations

import argparse

from . import options
from .exits import EXIT_OK

INTERMIXED = False


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["build-base"],
                   help="build-base: Debian bookworm with debootstrap, imported as --tag (needs root)")
    p.add_argument("--tag", default="agentcompass/base:bookworm", help="image tag (default %(default)s)")
    p.add_argument("--mirror", default="http://deb.debian.org/debian", help="Debian mirror for debootstrap")
    p.add_argument("--rebuild", action="store_true", help="run debootstrap again even when it is cached")
    p.add_argument("--log-level", default="INFO", type=options.log_level)


def main(args: argparse.Namespace) -> int:
    from agentcompass import _sdk

    tag = _sdk.build_base_image(args.tag, mirror=args.mirror, rebuild=args.rebuild, log_level=args.log_level)
    print(f"base image: {tag}")
    return EXIT_OK
