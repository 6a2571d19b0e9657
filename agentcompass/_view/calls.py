"""What the Attempt page shows of ``model_calls.jsonl``: one row per model call (source, protocols, status,
tokens, cost, latency, retries, warnings, the reply's text and tool calls), the totals, and one call's whole
line on demand (``/api/call``: request and response bodies). Lines were redacted when written (the API key and
the attempt's token); nothing else is read here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcompass.errors import ConfigError

from .files import read_jsonl
from .payloads import CallRow, CallsSummary, CallTotals, ToolCallView

FILE = "model_calls.jsonl"
ROWS = 2000  # rows listed on the page (the file itself is linked)
TEXT = 400  # characters of a reply's text in its row


def _row(index: int, line: dict[str, Any]) -> CallRow:
    response = line.get("response") or {}
    text = str(response.get("text") or "")
    calls: list[ToolCallView] = [
        {"name": c.get("name"), "arguments": str(c.get("arguments") or "")[:TEXT]}
        for c in response.get("tool_calls") or []
    ]
    return {
        "index": index,
        "seq": line.get("seq"),
        "time": line.get("time"),
        "source": line.get("source"),
        "agent_protocol": line.get("agent_protocol"),
        "upstream_protocol": line.get("upstream_protocol"),
        "translated": "upstream_request" in line,
        "model": line.get("model"),
        "role": line.get("role"),  # a model role's call (user, judge...); None: the evaluated model's
        "stream": line.get("stream"),
        "status": line.get("status"),
        "http_status": line.get("http_status"),
        "error": line.get("error"),
        "usage": line.get("usage") or {},
        "latency_s": line.get("latency_s"),
        "ttft_s": line.get("ttft_s"),
        "retries": line.get("retries"),
        "cache": line.get("cache"),
        "warnings": line.get("warnings") or [],
        "finish_reason": response.get("finish_reason"),
        "text": text[:TEXT],
        "text_cut": len(text) > TEXT,
        "tool_calls": calls,
    }


def _totals(lines: list[dict[str, Any]]) -> CallTotals:
    out: CallTotals = {
        "calls": len(lines), "input": 0, "output": 0, "cached": 0, "cost_usd": 0.0, "retries": 0, "by_status": {}
    }  # fmt: skip
    for line in lines:
        usage = line.get("usage") or {}
        out["input"] += int(usage.get("input") or 0)
        out["output"] += int(usage.get("output") or 0)
        out["cached"] += int(usage.get("cached") or 0)
        cost, total = usage.get("cost_usd"), out["cost_usd"]
        out["cost_usd"] = None if cost is None or total is None else total + float(cost)
        out["retries"] += int(line.get("retries") or 0)
        status = str(line.get("status"))
        out["by_status"][status] = out["by_status"].get(status, 0) + 1
    total = out["cost_usd"]
    out["cost_usd"] = None if total is None else round(total, 8)  # None: a price unknown
    return out


def calls_summary(folder: Path) -> CallsSummary | None:
    """The model calls of the attempt in ``folder`` (None: it made none, or has no record)."""
    lines = read_jsonl(folder / FILE)
    if not lines:
        return None
    return {
        "file": FILE,
        "totals": _totals(lines),
        "rows": [_row(i, line) for i, line in enumerate(lines[:ROWS])],
        "truncated": len(lines) > ROWS,
    }


def call_detail(folder: Path, index: str) -> dict[str, object]:
    """Line ``index`` (0-based) of the attempt's ``model_calls.jsonl``, whole."""
    lines = read_jsonl(folder / FILE)
    try:
        i = int(index)
    except ValueError:
        raise ConfigError(f"index={index!r}: expected the 0-based number of a call") from None
    if not 0 <= i < len(lines):
        raise ConfigError(f"index={i}: the attempt recorded {len(lines)} model calls")
    return lines[i]
