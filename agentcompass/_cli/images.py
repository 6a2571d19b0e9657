"""``agentcompass images build-base [--tag T] [--mirror URL] [--rebuild]``: build the offline base image.
``agentcompass images prebuild [BENCHMARK] [run options]``: build every task image before a run, on this machine
or (``--execution-params '{"executor": "ray", ...}'``) on every node of a Ray cluster."""

from __future__ import annotations

import argparse

from . import options
from .exits import EXIT_FAILED, EXIT_OK

INTERMIXED = False


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True, metavar="ACTION", help="build-base | prebuild")
    base = sub.add_parser("build-base", help="Debian bookworm with debootstrap, imported as --tag (needs root)")
    base.add_argument("--tag", default="agentcompass/base:bookworm", help="image tag (default %(default)s)")
    base.add_argument("--mirror", default="http://deb.debian.org/debian", help="Debian mirror for debootstrap")
    base.add_argument("--rebuild", action="store_true", help="run debootstrap again even when it is cached")
    base.add_argument("--log-level", default=None, type=options.log_level, help="console log level")
    pre = sub.add_parser(
        "prebuild",
        help="pull or build every task image of BENCHMARK (on every Ray node with "
        "executor ray); takes the options of `agentcompass run`",
    )
    options.add_request_arguments(pre)


def main(args: argparse.Namespace) -> int:
    from agentcompass import _sdk

    if args.action == "prebuild":
        kwargs = options.request_kwargs(args)
        kwargs.setdefault("environment", "docker")
        result = _sdk.prebuild_images(**kwargs)
        print(_sdk.format_prebuild(result))
        failed = any(r.get("failed") or ("error" in r and "tasks" not in r) for r in result["nodes"].values())
        return EXIT_FAILED if failed else EXIT_OK
    tag = _sdk.build_base_image(args.tag, mirror=args.mirror, rebuild=args.rebuild, log_level=args.log_level)
    print(f"base image: {tag}")
    return EXIT_OK
