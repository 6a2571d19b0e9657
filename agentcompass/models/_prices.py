"""Prices of a model without configuration: LiteLLM's model cost map, read from the installed package.

The table is the JSON file LiteLLM ships (``model_prices_and_context_window_backup.json``), read as data
without importing LiteLLM: importing it fetches the newest table from the network (an unpinned, moving
source), while the file in the installed wheel is fixed by its version. That version and the file's SHA-256 are
recorded with every price, so a run says exactly which table priced it. LiteLLM comes with the ``terminus2`` and
``mini-swe-agent`` extras; without it (or for a model id the table does not know) the price is unknown and the
cost is ``null``, never $0.

Lookup: the model id as sent, then without leading ``provider/`` segments (``openrouter/openai/gpt-4o`` ->
``openai/gpt-4o`` -> ``gpt-4o``). Per-token prices become per-million prices; ``cache_read_input_token_cost``
prices cached input tokens (the input price when absent).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from .config import Prices

TABLE_FILE = "model_prices_and_context_window_backup.json"
SOURCE_CONFIG, SOURCE_TABLE = "config", "litellm"


@dataclass(frozen=True)
class PriceTable:
    entries: dict[str, Any]
    version: str
    sha256: str


@dataclass(frozen=True)
class PriceInfo:
    """The prices of one model (None: unknown) and where they came from."""

    prices: Prices | None
    source: dict[str, object]  # where the prices came from (recorded whole)


@functools.lru_cache(maxsize=1)
def load_table() -> PriceTable | None:
    """LiteLLM's cost map from the installed package, or None when LiteLLM is not installed."""
    try:
        spec = importlib.util.find_spec("litellm")  # finds the package without importing (running) it
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
        data = (Path(locations[0]) / TABLE_FILE).read_bytes() if locations else None
        version = metadata.version("litellm")
    except (ImportError, ValueError, metadata.PackageNotFoundError, OSError):
        return None
    if data is None:
        return None
    try:
        entries = json.loads(data)
    except ValueError:
        return None
    return PriceTable(entries, version, hashlib.sha256(data).hexdigest())


def _candidates(model_id: str) -> list[str]:
    parts = model_id.split("/")
    return ["/".join(parts[i:]) for i in range(len(parts))]


def _per_mtok(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return round(float(value) * 1e6, 10)
    return None


def from_table(model_id: str, table: PriceTable | None) -> PriceInfo:
    """The table's prices of ``model_id`` (unknown when the table or the model is missing)."""
    base = {"source": SOURCE_TABLE, "table": TABLE_FILE}
    if table is None:
        return PriceInfo(None, {"source": None, "reason": "no price table: LiteLLM is not installed"})
    base.update(litellm_version=table.version, table_sha256=table.sha256)
    for key in _candidates(model_id):
        entry = table.entries.get(key)
        if not isinstance(entry, dict) or key == "sample_spec":
            continue
        inp, out = _per_mtok(entry.get("input_cost_per_token")), _per_mtok(entry.get("output_cost_per_token"))
        if inp is None or out is None:
            continue
        cached = _per_mtok(entry.get("cache_read_input_token_cost"))
        prices = Prices(input_per_mtok=inp, output_per_mtok=out, cached_input_per_mtok=cached)
        return PriceInfo(prices, {**base, "key": key, **prices.model_dump()})
    return PriceInfo(None, {**base, "source": None, "reason": f"{model_id!r} is not in the price table"})


def resolve(model_id: str, configured: Prices | None) -> PriceInfo:
    """``model.prices`` when set, else the price table's."""
    if configured is not None:
        return PriceInfo(configured, {"source": SOURCE_CONFIG, **configured.model_dump()})
    return from_table(model_id, load_table())
