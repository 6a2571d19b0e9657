"""Helpers shared by the recipe tests."""

from __future__ import annotations

from pathlib import Path

import yaml


def write_recipe(folder: Path, rid: str, data) -> Path:
    """``<folder>/<rid>.yaml`` from a mapping (or raw text)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{rid}.yaml"
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False))
    return path
