"""The streamed (SSE) form of each protocol's reply, both ways.

- :func:`synthesize`: the events of a stream that carries a given non-streamed body (a gateway in front of an
  endpoint that does not stream, a replayed call, the scripted server);
- :class:`Assembler` (via :func:`assembler`): the non-streamed body a stream amounts to (usage, the call record).

One module per bundled wire format (``chat``, ``messages``, ``responses``), each with ``synthesize(body, **opts)``
-> ``list[(event name or None, data dict or "[DONE]")]`` and ``Assembler`` (``feed(event, data)``, ``body()``); a
protocol speaking one of them under another name uses it, one with a format of its own gives these hooks in its
module (see :mod:`..protocols`). ``sse`` encodes and parses the wire form.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from .sse import SSEParser, encode

_MODULES = {"openai-chat": "chat", "openai-responses": "responses", "anthropic-messages": "messages"}

__all__ = ["SSEParser", "assembler", "encode", "error_event", "synthesize"]


def _module(protocol: str) -> Any:
    """The stream module of ``protocol``'s wire format (a protocol with a format of its own: its module)."""
    from ..protocols import module, wire

    fmt = wire(protocol)
    return importlib.import_module(f"{__package__}.{_MODULES[fmt]}") if fmt in _MODULES else module(protocol)


def synthesize(protocol: str, body: Mapping[str, object], **opts: Any) -> list[tuple[str | None, Any]]:
    """The events of ``protocol``'s stream whose assembled body is ``body`` (chat: ``include_usage``)."""
    return _module(protocol).synthesize(body, **opts)


def assembler(protocol: str) -> Any:
    """A new assembler of ``protocol``'s events (``feed(event, data)``, then ``body()``)."""
    return _module(protocol).Assembler()


def error_event(protocol: str, status: int, message: str) -> tuple[str | None, Any]:
    """A well-formed in-stream error event of ``protocol`` (sent when a stream fails after its first byte)."""
    return _module(protocol).error_event(status, message)
