"""Fetch agent builds into the cache ahead of a run (CI, an offline machine prepared in advance):

    python -m agentcompass.harnesses._installed fetch claude_code [--version V] [--platform linux-x64] [--data-dir D]

``--platform`` (repeatable): npm's platform names (``linux-x64``, ``linux-x64-musl``, ``linux-arm64``,
``linux-arm64-musl``); default: this host's. Prints the cache directory of each build.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from agentcompass.errors import AgentCompassError
from agentcompass.kit import default_data_dir

from . import delivery
from .platform import Platform, host

HARNESSES = {
    "aider": "agentcompass.harnesses.aider:AiderHarness",
    "claude_code": "agentcompass.harnesses.claude_code:ClaudeCodeHarness",
    "codex": "agentcompass.harnesses.codex:CodexHarness",
    "opencode": "agentcompass.harnesses.opencode:OpenCodeHarness",
    "openhands": "agentcompass.harnesses.openhands:OpenHandsHarness",
    "qwen_code": "agentcompass.harnesses.qwen_code:QwenCodeHarness",
    "gemini_cli": "agentcompass.harnesses.gemini_cli:GeminiCliHarness",
    "pi": "agentcompass.harnesses.pi:PiHarness",
    "cline": "agentcompass.harnesses.cline:ClineHarness",
    "kilo": "agentcompass.harnesses.kilo:KiloHarness",
}


def _platform(name: str) -> Platform:
    os_name, _, rest = name.partition("-")
    arch, _, libc = rest.partition("-")
    return Platform(os_name, arch, "musl" if libc == "musl" else "glibc", None if libc == "musl" else (2, 36))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentcompass.harnesses._installed")
    sub = parser.add_subparsers(dest="command", required=True)
    fetch = sub.add_parser("fetch", help="fetch a harness's builds into <data_dir>/agents/")
    fetch.add_argument("harness", choices=sorted(HARNESSES))
    fetch.add_argument("--version", default="")
    fetch.add_argument("--platform", action="append", default=[])
    fetch.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    module, _, name = HARNESSES[args.harness].partition(":")
    cls = getattr(importlib.import_module(module), name)
    harness = cls(cls.config_class(**({"version": args.version} if args.version else {})), None)
    data_dir = Path(args.data_dir).expanduser() if args.data_dir else default_data_dir()
    try:
        for plat in [_platform(p) for p in args.platform] or [host()]:
            for part in harness.parts(plat):
                delivery.ensure_sync(part, data_dir, auto_install=True, harness=args.harness, platform=plat.npm)
                print(part.host_dir(data_dir))
    except AgentCompassError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
