"""The canonical form of a model request, and the cache key derived from it.

A request is identified by what changes its answer: the protocol, the endpoint (scheme, host, port and path of
the URL the protocol posts to; never a key, user info or query), the model id, the messages and tools in the
chat form the client received them (before any protocol translation), the parameters that change the answer,
the sample index (so the ``-k`` samples of a task stay independent) and the occurrence: the n-th time the very
same request is made within one attempt (an agent asking twice gets two answers, as from the endpoint).

Parameters that change how a reply is delivered, not what it says, are left out: :data:`DELIVERY_PARAMS`.

No credential is part of a key: the API key and the headers never are, and a credential among the remaining
parameters (``api_key`` or a ``*token*`` / ``*secret*`` name in the body, user info in a URL) enters only as the
marker ``<redacted>`` (:func:`agentcompass.models._secrets.request_params`). A credential selects who pays for
an answer, not what the answer is: two requests that differ only in their keys share an entry, while the presence
of a credential parameter, the endpoint (host, port, path), the model and every other parameter still separate
entries. The same masking applies to the recorded requests, so replay compares like with like.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .._secrets import request_params
from .records import CanonicalRequest

KEY_VERSION = 1
DELIVERY_PARAMS = frozenset(
    {"timeout", "extra_headers", "extra_query", "user", "metadata", "store", "stream", "stream_options"}
)


def canonical_request(
    protocol: str,
    endpoint: str,
    model_id: str,
    messages: Sequence[Mapping[str, object]],
    tools: Sequence[Mapping[str, object]] | None,
    params: Mapping[str, object],
) -> CanonicalRequest:
    """The request as compared by the cache and by replay (JSON-ready; no secret can be in it: the key and
    headers are not part of it, credential parameters are masked, and the endpoint is shown without user info)."""
    return {
        "protocol": protocol,
        "endpoint": endpoint,
        "model": model_id,
        "messages": _plain(messages),
        "tools": _plain(tools or []),
        "params": _plain(request_params({k: v for k, v in sorted(params.items()) if k not in DELIVERY_PARAMS})),
    }


WIRE_DELIVERY_KEYS = frozenset({"stream", "stream_options"})


def wire_request(protocol: str, endpoint: str, model_id: str, body: Mapping[str, object]) -> CanonicalRequest:
    """The canonical form of a gateway call (an agent's body in its API's wire form, the request's model id in
    it): the body without the keys that only change delivery."""
    kept = {k: v for k, v in sorted(body.items()) if k not in WIRE_DELIVERY_KEYS}
    return {"protocol": protocol, "endpoint": endpoint, "model": model_id, "body": _plain(kept)}


def _plain(value: Any) -> Any:
    """``value`` as JSON types (tuples become lists; objects that are not JSON become their ``str``)."""
    return json.loads(dumps(value))


def dumps(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, Unicode kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def cache_key(request: CanonicalRequest, sample: int, occurrence: int) -> str:
    """sha256 over the canonical request, the sample index and the occurrence (hex)."""
    text = dumps({"v": KEY_VERSION, "request": request, "sample": sample, "occurrence": occurrence})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def request_digest(request: CanonicalRequest) -> str:
    """sha256 of the canonical request alone (counts the occurrences of the same request)."""
    return hashlib.sha256(dumps(request).encode("utf-8")).hexdigest()


def first_difference(recorded: Any, now: Any, path: str = "") -> str | None:
    """The dotted path of the first place two canonical requests differ, with both values cut short, or None."""
    if isinstance(recorded, dict) and isinstance(now, dict):
        for key in sorted(set(recorded) | set(now), key=str):
            if key not in recorded or key not in now:
                where = f"{path}.{key}" if path else str(key)
                side = "the recording" if key not in recorded else "this run"
                return f"{where} (absent in {side})"
            found = first_difference(recorded[key], now[key], f"{path}.{key}" if path else str(key))
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(now, list):
        for i, (a, b) in enumerate(zip(recorded, now, strict=False)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        if len(recorded) != len(now):
            return f"{path} (length {len(recorded)} recorded, {len(now)} now)"
        return None
    if recorded == now:
        return None
    return f"{path} (recorded {_short(recorded)}, now {_short(now)})"


def _short(value: Any, limit: int = 80) -> str:
    text = dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
