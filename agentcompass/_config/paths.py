"""Default locations (the helper kit's, so plug-ins and the core agree)."""

from __future__ import annotations

from pathlib import Path

from agentcompass.kit import default_data_dir

__all__ = ["data_dir", "default_data_dir"]


def data_dir(configured: str | None) -> Path:
    """``runtime.data_dir`` when set, else the default."""
    return Path(configured).expanduser() if configured else default_data_dir()
