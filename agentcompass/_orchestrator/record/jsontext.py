"""JSON text laid out for reading and encoded at the C encoder's speed, for the run's large files.

``json.dumps(obj, indent=2)`` falls back to the pure-Python encoder (CPython's C encoder has no indentation),
which makes ``summary.json`` of a large run cost seconds. :func:`dumps` lays out the containers of the first
``depth`` levels one entry per line, indented by two spaces, and encodes everything below (and every row of a
long list) compactly with the C encoder: ``summary.json`` keeps its sections and keys one per line and its
per-task rows one per line, at about the cost of a compact dump. The text parses to the same value as
``json.dumps(obj, default=default)``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

_INF = float("inf")


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (_INF, -_INF):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _key(key: Any) -> str:
    """A dict key as ``json`` writes it (keys are strings in JSON)."""
    if isinstance(key, str):
        return key
    if key is True or key is False or key is None:
        return json.dumps(key)
    return _float(key) if isinstance(key, float) else str(key)


class _Compact:
    def __init__(self, default: Callable[[Any], Any] | None, ensure_ascii: bool) -> None:
        self.string = json.encoder.encode_basestring_ascii if ensure_ascii else json.encoder.encode_basestring
        self.encoder = json.JSONEncoder(separators=(", ", ": "), default=default, ensure_ascii=ensure_ascii)

    def __call__(self, value: Any) -> str:
        if isinstance(value, str):
            return self.string(value)
        if value is None:
            return "null"
        if value is True:
            return "true"
        if value is False:
            return "false"
        if isinstance(value, int):
            return int.__repr__(value)
        if isinstance(value, float):
            return _float(value)
        return self.encoder.encode(value)


def dumps(obj: Any, *, depth: int = 2, default: Callable[[Any], Any] | None = str, ensure_ascii: bool = True) -> str:
    """``obj`` as JSON: containers down to ``depth`` levels one entry per line, the rest compact."""
    compact = _Compact(default, ensure_ascii)

    def layout(value: Any, left: int, level: int) -> str:
        if left <= 0 or not isinstance(value, dict | list | tuple) or not value:
            return compact(value)
        pad = "\n" + "  " * (level + 1)
        if isinstance(value, dict):
            entries = (f"{compact(_key(k))}: {layout(v, left - 1, level + 1)}" for k, v in value.items())
            opening, closing = "{", "}"
        else:
            entries = (layout(v, left - 1, level + 1) for v in value)
            opening, closing = "[", "]"
        return opening + pad + ("," + pad).join(entries) + "\n" + "  " * level + closing

    return layout(obj, depth, 0)
