"""Server-sent events: encoding one event, and parsing a byte stream into ``(event, data)`` pairs."""

from __future__ import annotations

import json
from typing import Any


def encode(event: str | None, data: Any) -> bytes:
    """One SSE frame: ``event: <name>`` (when given) and one ``data:`` line (a dict is JSON, a str is sent as is)."""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


class SSEParser:
    """Feed bytes as they arrive; :meth:`feed` returns the complete events so far as ``(event, data text)``.

    Lines may end in ``\\n``, ``\\r\\n`` or ``\\r``; several ``data:`` lines of one event are joined with ``\\n``;
    comments (``:``) and ``id:`` / ``retry:`` lines are ignored, as in the WHATWG rules."""

    def __init__(self) -> None:
        self._buf = b""
        self._event: str | None = None
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[tuple[str | None, str]]:
        self._buf += chunk
        out: list[tuple[str | None, str]] = []
        while True:
            cut = _line_end(self._buf)
            if cut is None:
                return out
            end, width = cut
            line, self._buf = self._buf[:end].decode("utf-8", "replace"), self._buf[end + width :]
            if not line:
                if self._data or self._event:
                    out.append((self._event, "\n".join(self._data)))
                self._event, self._data = None, []
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                self._event = value
            elif name == "data":
                self._data.append(value)

    def close(self) -> list[tuple[str | None, str]]:
        """The last event when the stream ended without its blank line."""
        out = self.feed(b"\n\n") if self._buf.strip() or self._data else []
        return out


def _line_end(buf: bytes) -> tuple[int, int] | None:
    n, r = buf.find(b"\n"), buf.find(b"\r")
    if r != -1 and (n == -1 or r < n):
        if r + 1 == len(buf):
            return None  # a lone \r at the end: wait for a possible \n
        return (r, 2) if buf[r + 1 : r + 2] == b"\n" else (r, 1)
    return None if n == -1 else (n, 1)
