"""The state effect of each call in a BFCL conversation: what changed in the task's API instances.

The state is what BFCL's state checker compares (``multi_turn_checker.state_checker``): each instance's public
attributes (``vars(instance)`` without ``_`` names). It is read as plain data (nested objects as their public
attributes, a cycle or a depth past :data:`MAX_DEPTH` as a short text) before and after the call, and the effect
is the list of paths whose value differs, each ``{path, before, after}`` (a value longer than
:data:`MAX_VALUE_CHARS` in JSON is cut). Shown by the viewer beside each call's result; grading never reads it.
"""

from __future__ import annotations

import json
from typing import Any

from .shapes import StateChange

MAX_DEPTH = 12
MAX_VALUE_CHARS = 400
MAX_CHANGES = 40


def state(instances: dict[str, object]) -> dict[str, dict[str, object]]:
    """``{class name: {attribute: plain value}}`` of the public attributes of each API instance."""
    return {name: _public(inst, set(), 0) for name, inst in instances.items()}


def _public(obj: object, seen: set[int], depth: int) -> dict[str, object]:
    return {k: _plain(v, seen, depth + 1) for k, v in vars(obj).items() if not k.startswith("_")}


def _plain(value: Any, seen: set[int], depth: int) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if depth > MAX_DEPTH:
        return "<…>"
    if id(value) in seen:
        return "<cycle>"
    seen = seen | {id(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v, seen, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return [_plain(v, seen, depth + 1) for v in items]
    if hasattr(value, "__dict__"):
        return _public(value, seen, depth)
    return repr(value)


def diff(before: object, after: object, path: str = "") -> list[StateChange]:
    """The paths where ``after`` differs from ``before`` (dicts compared key by key), at most :data:`MAX_CHANGES`."""
    out: list[StateChange] = []
    _diff(before, after, path, out)
    return out[:MAX_CHANGES]


_ABSENT = object()


def _diff(before: object, after: object, path: str, out: list[StateChange]) -> None:
    if len(out) >= MAX_CHANGES or before == after:
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for key in list(before) + [k for k in after if k not in before]:
            sub = f"{path}.{key}" if path else str(key)
            _diff(before.get(key, _ABSENT), after.get(key, _ABSENT), sub, out)
        return
    out.append({"path": path, "before": _short(before), "after": _short(after)})


def _short(value: Any) -> Any:
    if value is _ABSENT:
        return "(absent)"
    text = json.dumps(value, default=str)
    return value if len(text) <= MAX_VALUE_CHARS else text[:MAX_VALUE_CHARS] + "…"
