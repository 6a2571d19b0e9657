"""Default locations."""

from __future__ import annotations

import os
from pathlib import Path


def default_data_dir() -> Path:
    """Datasets, cloned task repositories and caches: ``$AGENTCOMPASS_DATA_DIR``, else ``~/.cache/agentcompass``."""
    return Path(os.environ.get("AGENTCOMPASS_DATA_DIR") or Path.home() / ".cache" / "agentcompass")


def data_dir(configured: str | None) -> Path:
    """``runtime.data_dir`` when set, else the default."""
    return Path(configured).expanduser() if configured else default_data_dir()
