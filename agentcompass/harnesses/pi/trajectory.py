"""pi's session file (``--session-dir``: one JSON-lines file per session) as ATIF.

Records: ``session`` (its ``id``), ``message`` entries holding an agent message (``role`` ``user``, ``assistant``
with ``content`` blocks ``text`` / ``thinking`` / ``toolCall`` (``id``, ``name``, ``arguments``) and ``usage``
(``input``, ``output``, ``cacheRead``, ``cacheWrite``, ``cost.total``), ``toolResult`` with ``toolCallId`` and
``content``), and ``usage`` / ``compaction`` entries (usage outside the conversation, counted in the report).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentcompass.harnesses._installed import atif


def _records(sessions: Path) -> list[dict[str, Any]]:
    files = sorted(Path(sessions).glob("*.jsonl"), key=lambda p: (p.stat().st_mtime_ns, p.name))
    return atif.read_jsonl(files[-1]) if files else []


def _usage(usage: Any) -> dict[str, int] | None:
    if not isinstance(usage, dict):
        return None
    return {
        "prompt": int(usage.get("input") or 0) + int(usage.get("cacheRead") or 0) + int(usage.get("cacheWrite") or 0),
        "completion": int(usage.get("output") or 0),
        "cached": int(usage.get("cacheRead") or 0),
    }


def _reply(builder: atif.Builder, message: dict[str, Any], timestamp: Any) -> None:
    blocks = [b for b in message.get("content") or [] if isinstance(b, dict)]
    text = "\n".join(b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str))
    thinking = "\n".join(b["thinking"] for b in blocks if b.get("type") == "thinking" and b.get("thinking"))
    calls = [
        (str(b.get("id", "")), str(b.get("name", "")), b.get("arguments") or {})
        for b in blocks
        if b.get("type") == "toolCall"
    ]
    builder.agent_step(text.strip(), calls, _usage(message.get("usage")), timestamp, thinking.strip() or None)


def convert(sessions: Path, version: str, model: str) -> atif.AtifTrajectory | None:
    records = _records(sessions)
    if not records:
        return None
    head = next((r for r in records if r.get("type") == "session"), {})
    builder = atif.Builder("pi", version, model, head.get("id"))
    for record in records:
        message = record.get("message") if record.get("type") == "message" else None
        if not isinstance(message, dict):
            continue
        role, stamp = message.get("role"), record.get("timestamp")
        if role == "user":
            builder.user(atif.text_of(message.get("content")), timestamp=stamp)
        elif role == "assistant":
            _reply(builder, message, stamp)
        elif role == "toolResult":
            builder.result(str(message.get("toolCallId", "")), atif.text_of(message.get("content")))
    return builder.to_dict() if builder.steps else None


def reported(sessions: Path) -> Mapping[str, object] | None:
    """pi's own token and cost figures (every assistant message, usage and compaction entry of the session)."""
    totals = {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "cache_write_tokens": 0, "cost_usd": 0.0}
    seen = False
    for record in _records(sessions):
        message = record.get("message")
        is_message = record.get("type") == "message" and isinstance(message, dict)
        usage = message.get("usage") if is_message and isinstance(message, dict) else record.get("usage")
        if not isinstance(usage, dict):
            continue
        seen = True
        totals["input_tokens"] += int(usage.get("input") or 0)
        totals["output_tokens"] += int(usage.get("output") or 0)
        totals["cache_read_tokens"] += int(usage.get("cacheRead") or 0)
        totals["cache_write_tokens"] += int(usage.get("cacheWrite") or 0)
        totals["cost_usd"] += float((usage.get("cost") or {}).get("total") or 0.0)
    return totals if seen else None
