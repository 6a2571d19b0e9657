"""``agentcompass cache stats | prune | clear``: the response cache database under ``data_dir``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from agentcompass._config import data_dir as resolve_data_dir
from agentcompass.errors import ConfigError


def _store(data_dir: str | None) -> Any:
    from agentcompass.models.cache import ResponseStore, db_path

    return ResponseStore(db_path(resolve_data_dir(data_dir)))


def cache_stats(data_dir: str | None = None) -> dict[str, Any]:
    """Entries, bytes, hits, the cost the stored replies had, per-model counts (an absent database: empty)."""
    from agentcompass.models.cache import db_path

    path = db_path(resolve_data_dir(data_dir))
    if not path.exists():
        return {"path": str(path), "entries": 0, "bytes": 0, "file_bytes": 0, "hits": 0, "models": {}}
    store = _store(data_dir)
    try:
        stats: dict[str, Any] = store.stats().to_dict()
        return stats
    finally:
        store.close()


def cache_prune(
    data_dir: str | None = None, *, older_than: str | float | None = None, max_mb: float | None = None
) -> int:
    """Drop entries older than ``older_than`` (a duration), then least recently used ones past ``max_mb``."""
    from agentcompass.models.config import duration_s

    if older_than is None and max_mb is None:
        raise ConfigError("cache prune: give --older-than DURATION and/or --max-mb N")
    try:
        age = duration_s(older_than) if older_than is not None else None
    except ValueError as exc:
        raise ConfigError(f"cache prune --older-than: {exc}") from None
    if max_mb is not None and not max_mb >= 0:
        raise ConfigError(f"cache prune --max-mb={max_mb}: expected a number >= 0")
    store = _store(data_dir)
    try:
        return int(store.prune(older_than_s=age, max_bytes=int(max_mb * 2**20) if max_mb is not None else None))
    finally:
        store.close()


def cache_clear(data_dir: str | None = None) -> int:
    store = _store(data_dir)
    try:
        return int(store.clear())
    finally:
        store.close()


def format_cache_stats(stats: dict[str, Any]) -> str:
    def when(ts: float | None) -> str:
        return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds") if ts else "-"

    lines = [
        f"cache {stats['path']}",
        f"entries {stats['entries']}  data {stats['bytes'] / 2**20:.2f} MiB  file {stats['file_bytes'] / 2**20:.2f} "
        f"MiB  hits {stats['hits']}",
    ]
    if stats["entries"]:
        unknown = f" ({stats['unknown_cost']} entries of unknown price)" if stats.get("unknown_cost") else ""
        lines.append(f"replies first cost ${stats['cost_usd']:.4f}{unknown}")
        lines.append(f"oldest {when(stats['oldest'])}  newest {when(stats['newest'])}")
        lines += [f"  {model}: {n}" for model, n in stats["models"].items()]
    return "\n".join(lines)
