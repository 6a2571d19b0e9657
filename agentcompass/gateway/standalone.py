"""``agentcompass gateway``: the gateway in the foreground for any client, on one model.

One session (one token) serves every client of the process; calls are counted and, with a record directory,
recorded in ``<dir>/model_calls.jsonl`` exactly as an attempt's are. The base URL and the token are printed on one
line each (stdout), what is served on stderr; Ctrl-C or SIGTERM stops it: the listener closes, the model client's
connections close, and the calls' usage is printed (stderr).
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from agentcompass.errors import ConfigError

from .service import Gateway


@dataclass
class _Attempt:
    """What ``Model.fork`` needs to record calls: where (no task, no sample)."""

    attempt_dir: Path


async def serve(
    model: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    record_dir: Path | None = None,
    out: TextIO | None = None,
    started: asyncio.Event | None = None,
) -> None:
    """Serve ``model`` until cancelled (see the module doc)."""
    out = out or sys.stdout
    fork = model.fork(_Attempt(record_dir) if record_dir is not None else None)
    gateway = Gateway(port=port if host == "127.0.0.1" else 0)
    try:
        await gateway.start()
        base = gateway.base_url if host == "127.0.0.1" else f"http://{host}:{await gateway.listen_on(host, port)}"
    except OSError as exc:
        await gateway.aclose()
        await model.aclose()
        raise ConfigError(f"--host {host} --port {port}: cannot listen there ({exc.strerror or exc})") from None
    try:
        session = gateway.open_session(fork, "standalone")
        print(base, file=out, flush=True)
        print(session.token, file=out, flush=True)
        where = f"; calls recorded in {record_dir / 'model_calls.jsonl'}" if record_dir is not None else ""
        print(
            f"agentcompass gateway: model {model.model_id} ({', '.join(model.describe().values())[:200]}) for "
            f"Anthropic Messages ({base}), OpenAI Responses and Chat ({base}/v1){where}; Ctrl-C stops it",
            file=sys.stderr,
            flush=True,
        )
        if started is not None:
            started.set()
        await asyncio.Event().wait()  # until cancelled (Ctrl-C, SIGTERM)
    finally:
        await gateway.aclose()
        await model.aclose()
        u = fork.usage
        cost = "cost unknown (no price)" if u.cost_usd is None else f"${u.cost_usd:.4f}"
        print(
            f"agentcompass gateway: stopped; {u.n_calls} calls served ({u.input_tokens} input, {u.output_tokens} "
            f"output tokens, {cost})",
            file=sys.stderr,
            flush=True,
        )
