"""What a forwarded call needs besides its HTTP: the endpoint protocol it goes out in (and its translation), and
the body a stream amounts to."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agentcompass.errors import ModelError

from . import _streams


def upstream_of(model: Any, req: Any) -> tuple[str, Any]:
    """The endpoint protocol to send ``req`` in and its translation (None: the agent's own protocol)."""
    shared = model._shared
    if req.protocol in shared.candidates:
        return req.protocol, None
    order = ([shared.chosen] if shared.chosen in shared.candidates else []) + list(shared.candidates)
    if req.translate is not None and not req.suffix:
        body = {**req.body, "model": req.model or model.model_id}
        for protocol in dict.fromkeys(order):
            translation = req.translate(protocol, body)
            if translation is not None:
                return protocol, translation
    what = "this route" if req.suffix else f"a request in {req.protocol}"
    raise ModelError(
        f"the endpoint of model {model.model_id!r} speaks {', '.join(shared.candidates)}; {what} has no translation "
        "to those protocols",
        status=400,
    )


def assembled(protocol: str, raw: bytes) -> tuple[dict[str, Any] | None, Mapping[str, object] | None]:
    """The non-streamed body a stream amounts to, and the error it carried (None: none)."""
    asm, parser = _streams.assembler(protocol), _streams.SSEParser()
    for event, text in parser.feed(raw) + parser.close():
        try:
            asm.feed(event, text if text == "[DONE]" else json.loads(text))
        except ValueError:  # a stream cut inside an event
            continue
    return asm.body(), asm.error
