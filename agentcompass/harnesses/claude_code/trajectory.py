"""Claude Code's ``--output-format=stream-json`` log as ATIF.

The log is one JSON object per line: ``system`` (``init``: the session, the model, the tools), ``assistant``
(a model reply, or one content block of it; blocks of one reply share ``message.id``), ``user`` (tool results)
and a final ``result`` (turns, the agent's own usage and cost estimate).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentcompass.harnesses._installed import atif


def _usage(message: dict[str, Any]) -> dict[str, int]:
    u = message.get("usage") or {}
    cached = int(u.get("cache_read_input_tokens") or 0)
    prompt = int(u.get("input_tokens") or 0) + cached + int(u.get("cache_creation_input_tokens") or 0)
    return {"prompt": prompt, "completion": int(u.get("output_tokens") or 0), "cached": cached}


def _reply(builder: atif.Builder, blocks: list[dict[str, Any]], message: dict[str, Any]) -> None:
    text = "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    thinking = "\n".join(b.get("thinking", "") for b in blocks if b.get("type") == "thinking")
    calls = [(b.get("id", ""), b.get("name", ""), b.get("input", {})) for b in blocks if b.get("type") == "tool_use"]
    builder.agent_step(text, calls, _usage(message), reasoning=thinking or None)


def convert(log: Path, instruction: str, version: str, model: str) -> atif.AtifTrajectory | None:
    events = atif.read_jsonl(log)
    if not events:
        return None
    init = next((e for e in events if e.get("type") == "system" and e.get("subtype") == "init"), {})
    builder = atif.Builder(
        "claude-code", str(init.get("claude_code_version") or version), model, init.get("session_id")
    )
    builder.user(instruction)
    pending: tuple[str, list[dict[str, Any]], dict[str, Any]] | None = None
    for event in events:
        kind, message = event.get("type"), event.get("message") or {}
        if kind == "assistant":
            mid = str(message.get("id") or id(message))
            if pending is not None and pending[0] == mid:
                pending[1].extend(message.get("content") or [])
                pending = (mid, pending[1], message)
                continue
            if pending is not None:
                _reply(builder, pending[1], pending[2])
            pending = (mid, list(message.get("content") or []), message)
            continue
        if pending is not None:
            _reply(builder, pending[1], pending[2])
            pending = None
        if kind == "user":
            for block in message.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    builder.result(str(block.get("tool_use_id", "")), atif.text_of(block.get("content")))
        elif kind == "result":
            builder.extra["result"] = {k: event.get(k) for k in ("subtype", "is_error", "num_turns", "duration_ms")}
    if pending is not None:
        _reply(builder, pending[1], pending[2])
    if init:
        builder.extra["tools"] = init.get("tools")
    return builder.to_dict()


def reported(log: Path) -> Mapping[str, object] | None:
    """The ``result`` event's own figures: turns, usage, ``total_cost_usd``."""
    result = next((e for e in reversed(atif.read_jsonl(log)) if e.get("type") == "result"), None)
    if result is None:
        return None
    return {k: result.get(k) for k in ("num_turns", "total_cost_usd", "usage", "subtype", "is_error")}
