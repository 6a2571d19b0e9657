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
        self._cr = False  # the last chunk ended in \r: a \n opening the next one belongs to that line end
        self._event: str | None = None
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[tuple[str | None, str]]:
        if self._cr and chunk[:1] == b"\n":
            chunk = chunk[1:]
        self._cr = False
        buf = self._buf + chunk
        if b"\r" in buf:
            self._cr = buf.endswith(b"\r")
            buf = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = buf.split(b"\n")
        self._buf = lines.pop()  # the line not ended yet
        out: list[tuple[str | None, str]] = []
        for raw in lines:
            if not raw:
                if self._data or self._event:
                    out.append((self._event, "\n".join(self._data)))
                self._event, self._data = None, []
                continue
            name, _, value = raw.decode("utf-8", "replace").partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                self._event = value
            elif name == "data":
                self._data.append(value)
        return out

    def close(self) -> list[tuple[str | None, str]]:
        """The last event when the stream ended without its blank line."""
        out = self.feed(b"\n\n") if self._buf.strip() or self._data else []
        return out
