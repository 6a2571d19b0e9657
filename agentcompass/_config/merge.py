"""Deep merge with the config tree's rules: dicts merge recursively, everything else (lists too) is replaced."""

from __future__ import annotations

from typing import Any


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Return ``base`` updated in place by ``over``: nested dicts merge, other values replace."""
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            deep_merge(base[key], value)
        else:
            base[key] = value
    return base


def set_path(target: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    """Set ``a.b.c`` in a nested dict, creating the intermediate dicts."""
    node = target
    parts = dotted.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return target
