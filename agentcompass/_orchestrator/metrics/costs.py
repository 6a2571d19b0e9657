"""Cost fields of a sample row and of the run metrics (unknown prices stay unknown: null, never $0), and the
model roles' usage summed over rows.

``cost_usd`` is what the endpoint calls cost (None when a price was unknown); ``cache_hits`` counts the calls
answered from the response cache or a replayed run, and ``cost_saved_usd`` is what those cost when first made.
"""

from __future__ import annotations

from collections.abc import Iterable

from typing_extensions import TypedDict

from agentcompass.interfaces import Usage, sum_cost

from ..record import AttemptOutcome, ResultRow, UsageRecord, usage_record


class Costs(TypedDict):
    cost_usd: float | None
    cache_hits: int
    cost_saved_usd: float | None


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def row_costs(attempts: list[AttemptOutcome]) -> Costs:
    """Cost fields of one sample: summed over its attempts (retries cost money too)."""
    usages = [a.usage or {} for a in attempts]
    return {
        "cost_usd": _rounded(sum_cost(u.get("cost_usd", 0.0) for u in usages), 8),
        "cache_hits": sum(int(u.get("cache_hits", 0) or 0) for u in usages),
        "cost_saved_usd": _rounded(sum_cost(u.get("cost_saved_usd", 0.0) for u in usages), 8),
    }


def run_costs(rows: Iterable[ResultRow]) -> Costs:
    """Cost fields of the run metrics, from its sample rows (rows of older runs carry no cache fields)."""
    rows = list(rows)
    return {
        "cost_usd": _rounded(sum_cost(r.get("cost_usd", 0.0) for r in rows), 6),
        "cache_hits": sum(int(r.get("cache_hits", 0) or 0) for r in rows),
        "cost_saved_usd": _rounded(sum_cost(r.get("cost_saved_usd", 0.0) for r in rows), 6),
    }


def format_cost(value: float | None, digits: int = 4) -> str:
    """A cost for a table: ``unknown`` when a price was unknown."""
    return "unknown" if value is None else f"{value:.{digits}f}"


def sum_role_usage(rows: list[ResultRow]) -> dict[str, UsageRecord]:
    """Usage per role over results rows (each row's ``usage_by_role``)."""
    totals: dict[str, Usage] = {}
    for row in rows:
        for role, usage in (row.get("usage_by_role") or {}).items():
            totals.setdefault(role, Usage()).add(Usage.from_dict(dict(usage)))
    return {role: usage_record(usage) for role, usage in sorted(totals.items())}
