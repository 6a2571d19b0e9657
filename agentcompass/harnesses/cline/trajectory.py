"""Cline's session file (``~/.cline/data/sessions/<id>/<id>.messages.json``, copied to ``/logs/agent/sessions``)
as ATIF: ``messages`` of ``role`` ``user`` / ``assistant``, ``content`` a string or blocks (``text``,
``thinking``, ``tool_use`` with ``id`` / ``name`` / ``input``, ``tool_result`` with ``tool_use_id`` / ``content``);
an assistant message's ``metrics`` (``inputTokens``, ``outputTokens``, ``cacheReadTokens``, ``cost``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC
from pathlib import Path
from typing import Any

from agentcompass.harnesses._installed import atif


def _document(sessions: Path) -> dict[str, Any] | None:
    files = sorted(Path(sessions).glob("*/*.messages.json"), key=lambda p: p.stat().st_mtime_ns)
    if not files:
        return None
    doc = json.loads(files[-1].read_text(encoding="utf-8"))
    return doc if isinstance(doc, dict) and isinstance(doc.get("messages"), list) else None


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return [b for b in content or [] if isinstance(b, dict)]


def _stamp(ts: Any) -> str | None:
    from datetime import datetime

    if not isinstance(ts, (int, float)) or isinstance(ts, bool):
        return None
    return datetime.fromtimestamp(ts / 1000, tz=UTC).isoformat()


def _assistant(builder: atif.Builder, message: dict[str, Any]) -> None:
    blocks = _blocks(message.get("content"))
    text = "\n".join(str(b.get("text")) for b in blocks if b.get("type") == "text" and b.get("text"))
    thinking = "\n".join(str(b.get("thinking") or b.get("text")) for b in blocks if b.get("type") == "thinking")
    uses = [b for b in blocks if b.get("type") == "tool_use"]
    calls = [(str(b.get("id", "")), str(b.get("name", "")), b.get("input") or {}) for b in uses]
    metrics = message.get("metrics")
    usage = None
    if isinstance(metrics, dict):
        usage = {
            "prompt": int(metrics.get("inputTokens") or 0),
            "completion": int(metrics.get("outputTokens") or 0),
            "cached": int(metrics.get("cacheReadTokens") or 0),
        }
    builder.agent_step(text, calls, usage, _stamp(message.get("ts")), thinking or None)


def convert(sessions: Path, version: str, model: str) -> atif.AtifTrajectory | None:
    doc = _document(sessions)
    if doc is None:
        return None
    builder = atif.Builder("cline-cli", version, model, doc.get("sessionId"))
    for message in doc["messages"]:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant":
            _assistant(builder, message)
            continue
        blocks = _blocks(message.get("content"))
        for block in blocks:
            if block.get("type") == "tool_result":
                builder.result(str(block.get("tool_use_id", "")), atif.text_of(block.get("content")))
        text = "\n".join(str(b.get("text")) for b in blocks if b.get("type") == "text" and b.get("text"))
        if text:
            builder.user(text, timestamp=_stamp(message.get("ts")))
    return builder.to_dict() if builder.steps else None


def reported(sessions: Path) -> Mapping[str, object] | None:
    """Cline's own figures: the sum of its assistant messages' ``metrics``."""
    doc = _document(sessions)
    messages: list[Any] = (doc or {}).get("messages", [])
    metrics: list[dict[str, Any]] = [
        m["metrics"] for m in messages if isinstance(m, dict) and isinstance(m.get("metrics"), dict)
    ]
    if not metrics:
        return None
    keys = {"inputTokens": "input_tokens", "outputTokens": "output_tokens", "cacheReadTokens": "cache_read_tokens"}
    out: dict[str, Any] = {ours: sum(int(m.get(k) or 0) for m in metrics) for k, ours in keys.items()}
    out["cost_usd"] = sum(float(m.get("cost") or 0.0) for m in metrics)
    return out
