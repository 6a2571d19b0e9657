"""The JSON Schemas of a run directory's record files (``agentcompass schema``; docs/results.md#schemas)."""

from __future__ import annotations

from typing import Any


def record_kinds() -> dict[str, str]:
    """Each kind of record file (``result``, ``row``, ``summary``, ``run``) and what it is."""
    from agentcompass._orchestrator.record import KINDS

    return dict(KINDS)


def record_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one kind, with its ``$id`` and ``schema_version``."""
    from agentcompass._orchestrator.record import json_schema

    return json_schema(kind)
