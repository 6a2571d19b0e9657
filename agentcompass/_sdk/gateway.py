"""``agentcompass gateway``: build the model from the usual model options and serve the gateway in front of it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from agentcompass.errors import ConfigError


def _model(model: str, base_url: str | None, protocol: str | None, api_key: str | None) -> Any:
    from agentcompass._config import build, data_dir, register_secret
    from agentcompass.interfaces import ComponentContext

    from .evaluate import compose_from_kwargs

    kw: dict[str, Any] = {"model": model, "model_base_url": base_url, "model_api_key": api_key}
    if protocol is not None:
        kw["model_api_protocol"] = protocol
    resolved = compose_from_kwargs({k: v for k, v in kw.items() if v is not None})
    data = resolved.data["model"]
    if data.get("_target_") is None:
        raise ConfigError(f"--model {model!r}: the gateway needs a model to forward to")
    register_secret(data.get("api_key"))
    ctx = ComponentContext(data_dir=data_dir(None), run_id="gateway", request="gateway", model_id=str(data.get("id")))
    return build("model", data, ctx)


def serve_gateway(
    model: str,
    *,
    model_base_url: str | None = None,
    model_api_protocol: str | None = None,
    model_api_key: str | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    record_dir: str | Path | None = None,
) -> None:
    """Serve the model gateway in the foreground until Ctrl-C / SIGTERM (see ``agentcompass.gateway.standalone``)."""
    record = Path(record_dir).expanduser() if record_dir is not None else None
    if record is not None and record.exists() and not record.is_dir():
        raise ConfigError(f"--record-dir {str(record)!r} is a file; expected a directory (created when missing)")
    client = _model(model, model_base_url, model_api_protocol, model_api_key)
    if host != "127.0.0.1":
        print(
            f"agentcompass gateway: warning: bound to {host}; anyone who can reach it with the token can use the model",
            file=sys.stderr,
        )
    from agentcompass.gateway.standalone import serve

    try:
        asyncio.run(serve(client, host=host, port=port, record_dir=record))
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (sigterm_as_interrupt): a clean stop
        pass
