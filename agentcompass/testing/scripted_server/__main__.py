"""``python -m agentcompass.testing.scripted_server --port N --script replies.yaml`` (or ``--script terminus2``).

``--script`` is a YAML file or the name of a shipped example (``examples/<name>.yaml``: ``terminus2``,
``mini_swe_agent``, ``tool_agent``). The file is a list of replies handed out in order, or a mapping with
``replies`` or ``tasks`` (a list of replies per task, keyed by a marker text of its requests: :mod:`.keyed`) and
any other keyword of :class:`ScriptedModelServer` (``faults``, ``default_reply``, ``latency_s``, ``fault_rate``...).
Prints ``AGENTCOMPASS_SCRIPTED_PORT=<port>`` and the base URL on stdout once it is listening; the
``scripted`` model config (``conf/model/scripted.yaml``) reads that variable (default 8765).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from agentcompass.errors import ConfigError
from agentcompass.kit import write_atomic

from .script import examples
from .server import ScriptedModelServer


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m agentcompass.testing.scripted_server",
        description="Serve scripted model replies over HTTP on 127.0.0.1.",
    )
    p.add_argument("--port", type=int, default=8765, help="port to listen on (0: a free port; default 8765)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument(
        "--script",
        help="a YAML file (a list of replies, or a mapping with 'replies' or 'tasks', 'faults'...) or the name of a "
        "shipped example: " + ", ".join(examples()),
    )
    p.add_argument("--default-reply", help="reply text once the script is used up (default: a 500 error)")
    p.add_argument("--latency-s", type=float, default=None, help="added latency per request, seconds")
    p.add_argument("--fault-rate", type=float, default=None, help="probability of a random fault per request")
    p.add_argument("--fault-kinds", default=None, help="comma-separated fault kinds, e.g. 429,500,drop")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--port-file", type=Path, help="write the chosen port to this file once listening")
    return p


def _build(args: argparse.Namespace) -> ScriptedModelServer:
    kwargs: dict[str, Any] = {"host": args.host, "port": args.port, "seed": args.seed}
    if args.default_reply is not None:
        kwargs["default_reply"] = args.default_reply
    if args.latency_s is not None:
        kwargs["latency_s"] = args.latency_s
    if args.fault_rate is not None:
        kwargs["fault_rate"] = args.fault_rate
    if args.fault_kinds:
        kwargs["fault_kinds"] = [k.strip() for k in args.fault_kinds.split(",") if k.strip()]
    if args.script:
        return ScriptedModelServer.from_yaml(args.script, **kwargs)
    return ScriptedModelServer(**kwargs)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        server = _build(args).start()
    except (ConfigError, TypeError, OSError) as exc:
        print(f"scripted_server: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    if args.port_file:
        write_atomic(args.port_file, str(server.port))
    print(f"AGENTCOMPASS_SCRIPTED_PORT={server.port}\nlistening on {server.base_url}", flush=True)
    stop.wait()
    server.stop()
    print(
        f"served {server.n_requests} requests ({server.n_faults_injected} faults injected), "
        f"max concurrency {server.max_concurrency}",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
