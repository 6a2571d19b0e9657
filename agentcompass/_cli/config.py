"""``agentcompass config [same arguments as run]``: print the resolved config (secrets redacted); run nothing."""

from __future__ import annotations

import argparse

from . import options
from .exits import EXIT_OK

INTERMIXED = True


def add_arguments(p: argparse.ArgumentParser) -> None:
    options.add_request_arguments(p)


def main(args: argparse.Namespace) -> int:
    from agentcompass import _sdk

    print(_sdk.render_config(**options.request_kwargs(args)), end="")
    return EXIT_OK
