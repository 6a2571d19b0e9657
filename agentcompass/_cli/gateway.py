"""``agentcompass gateway --model M [--model-base-url URL] [--model-api-protocol P] [--model-api-key K] [--port N]
[--record-dir DIR]``: the model gateway in the foreground, for any client (docs/gateway.md, Standalone)."""

from __future__ import annotations

import argparse

from . import options
from .exits import EXIT_OK
from .view import port

INTERMIXED = False


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--model", required=True, metavar="M", help="a conf/model/ id, or the model name sent to the endpoint"
    )
    p.add_argument("--model-base-url", metavar="URL", default=None, help="the model endpoint")
    p.add_argument(
        "--model-api-protocol",
        metavar="P",
        default=None,
        help="the endpoint's protocol, default auto: openai-chat, openai-responses, anthropic-messages, google-genai",
    )
    p.add_argument(
        "--model-api-key", metavar="K", default=None, help="the endpoint's key (default: the usual env vars)"
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=port, default=0, help="port (default 0: a free port, printed)")
    p.add_argument("--record-dir", metavar="DIR", default=None, help="record every call in DIR/model_calls.jsonl")
    p.add_argument("--log-level", default=None, type=options.log_level, help="console log level (DEBUG: tracebacks)")


def main(args: argparse.Namespace) -> int:
    from agentcompass import _sdk

    _sdk.serve_gateway(
        args.model,
        model_base_url=args.model_base_url,
        model_api_protocol=args.model_api_protocol,
        model_api_key=args.model_api_key,
        host=args.host,
        port=args.port,
        record_dir=args.record_dir,
    )
    return EXIT_OK
