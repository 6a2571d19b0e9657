"""Shrinking what a static report embeds: long strings keep their head and tail, long lists their first and
last items, until the JSON fits a byte budget. Every cut says how much it left out."""

from __future__ import annotations

import json
from typing import Any

MIN_STRING = 512  # strings are cut down to this before lists are
LAST_STRING = 96
MIN_ITEMS = 2


def cut_text(text: str, limit: int, tail_share: float = 0.5) -> str:
    if len(text) <= limit:
        return text
    tail = int(limit * tail_share)
    head = limit - tail
    return (
        f"{text[:head]}\n[... {len(text) - head - tail} characters not included in the report ...]\n"
        f"{text[len(text) - tail :] if tail else ''}"
    )


def _strings(obj: Any, limit: int) -> Any:
    if isinstance(obj, str):
        return cut_text(obj, limit)
    if isinstance(obj, dict):
        return {k: _strings(v, limit) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_strings(v, limit) for v in obj]
    return obj


def _marker(sample: Any, n: int) -> Any:
    note = f"[{n} items not included in the report]"
    if isinstance(sample, dict) and "role" in sample:
        return {"role": "report", "content": note, "agentcompass_elided": n}
    if isinstance(sample, dict) and "source" in sample:
        return {"source": "report", "message": note, "agentcompass_elided": n}
    return {"agentcompass_elided": n, "note": note} if isinstance(sample, dict) else note


def _longest_list(obj: Any) -> list[Any] | None:
    best: list[Any] | None = None
    stack = [obj]
    while stack:
        cur = stack.pop()
        items = cur.values() if isinstance(cur, dict) else cur if isinstance(cur, list) else ()
        if isinstance(cur, list) and (best is None or len(cur) > len(best)):
            best = cur
        stack.extend(v for v in items if isinstance(v, (dict, list)))
    return best


def _cut_list(obj: Any, keep: int) -> bool:
    """Keep the first and last ``keep`` items of the longest list (in place); False when nothing to cut."""
    target = _longest_list(obj)
    if target is None or len(target) <= 2 * keep + 1:
        return False
    n = len(target) - 2 * keep
    target[keep : len(target) - keep] = [_marker(target[keep], n)]
    return True


def size_of(obj: Any) -> int:
    return len(json.dumps(obj, separators=(",", ":"), default=str))


def shrink(obj: Any, budget: int) -> tuple[Any, bool]:
    """``(a copy of obj that serialises to at most ~budget bytes, whether anything was cut)``."""
    if size_of(obj) <= budget:
        return obj, False
    limit = 4096
    out = _strings(obj, limit)
    while size_of(out) > budget and limit > MIN_STRING:
        limit //= 2
        out = _strings(obj, limit)
    keep = 64
    while size_of(out) > budget and keep >= MIN_ITEMS:
        out = _strings(obj, limit)
        _cut_list(out, keep)
        keep //= 2
    while size_of(out) > budget and limit > LAST_STRING:
        limit //= 2
        out = _strings(out, limit)
    if size_of(out) > 2 * budget:
        out = {"agentcompass_elided": 1, "note": f"[{size_of(obj)} bytes: too large for the report]"}
    return out, True
