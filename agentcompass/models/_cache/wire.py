"""The response cache for calls an agent makes through the model gateway (requests in an API's wire form).

The canonical request is the agent's body as sent upstream (the request's model id in it) without the keys that
only change delivery (``stream``, ``stream_options``), with the protocol and the endpoint path; the key adds
the attempt's sample and the occurrence, as for the client's own calls (:mod:`.key`). A hit is served from the
stored non-streamed body; the gateway streams it to an agent that asked for a stream, as it does for an endpoint
that does not stream.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .calls import AttemptCalls, Pending
from .key import WIRE_DELIVERY_KEYS, wire_request
from .records import CanonicalRequest, StoredReply

__all__ = ["WIRE_DELIVERY_KEYS", "keep", "lookup", "reply_of", "wire_request"]


async def lookup(calls: AttemptCalls, request: CanonicalRequest) -> tuple[Pending | None, StoredReply | None]:
    """``(pending, stored reply)``; ``(None, None)`` without a cache."""
    store = calls.plan.store
    if store is None:
        return None, None
    pending = calls.begin_request(request)
    reply = await asyncio.to_thread(store.get, pending.key)
    return pending, reply


def reply_of(protocol: str, body: dict[str, Any]) -> StoredReply:
    """A gateway reply as stored: its summary, tokens and the whole non-streamed body (``raw``)."""
    from .. import _wire

    text, finish, calls = _wire.summary(protocol, body)
    n_in, n_out, cached = _wire.tokens(protocol, body)
    usage: dict[str, object] = {"input": n_in, "output": n_out, "cached": cached}
    return {"text": text, "finish_reason": finish, "tool_calls": calls, "usage": usage, "raw": body}


async def keep(calls: AttemptCalls, pending: Pending, reply: StoredReply) -> None:
    """Store the endpoint's reply (``read_write``)."""
    store = calls.plan.store
    if store is not None and calls.plan.mode == "read_write":
        request, reply = pending.request, calls.plan.credentials.scrub_json(reply)
        await asyncio.to_thread(store.put, pending.key, reply, model=request["model"], protocol=request["protocol"])
