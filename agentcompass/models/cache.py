"""The response cache's database, for the commands that manage it (``agentcompass cache stats | prune | clear``):
the model layer's front door to it, whose own modules (``_cache``) stay private."""

from __future__ import annotations

from ._cache.store import ResponseStore, db_path

__all__ = ["ResponseStore", "db_path"]
