"""Qwen Code's chat recording (``~/.qwen/projects/<project>/chats/<session>.jsonl``, ``--chat-recording``) as ATIF.

Each line is a record with ``type``: ``user`` (the prompt), ``assistant`` (a model reply: ``message.parts`` of
``text`` / ``thought`` / ``functionCall``, with ``usageMetadata``), ``tool_result`` (``functionResponse`` parts) and
``system`` records (Qwen's own telemetry events, kept out of the trajectory).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcompass.harnesses._installed import atif


def _usage(meta: dict[str, Any]) -> dict[str, int]:
    return {
        "prompt": int(meta.get("promptTokenCount") or 0),
        "completion": int(meta.get("candidatesTokenCount") or 0) + int(meta.get("thoughtsTokenCount") or 0),
        "cached": int(meta.get("cachedContentTokenCount") or 0),
    }


def _reply(builder: atif.Builder, record: dict[str, Any]) -> None:
    parts = (record.get("message") or {}).get("parts") or []
    text = "\n".join(p["text"] for p in parts if isinstance(p.get("text"), str) and not p.get("thought"))
    thought = "\n".join(p["text"] for p in parts if isinstance(p.get("text"), str) and p.get("thought"))
    calls = [
        (str(c.get("id", "")), str(c.get("name", "")), c.get("args", {}))
        for c in (p.get("functionCall") for p in parts)
        if isinstance(c, dict)
    ]
    usage = _usage(record["usageMetadata"]) if record.get("usageMetadata") else None
    builder.agent_step(text, calls, usage, timestamp=record.get("timestamp"), reasoning=thought or None)


def convert(sessions: Path, instruction: str, version: str, model: str) -> atif.AtifTrajectory | None:
    files = sorted(Path(sessions).rglob("chats/*.jsonl"))
    records = [r for f in files for r in atif.read_jsonl(f)]
    if not records:
        return None
    first = records[0]
    builder = atif.Builder("qwen-code", str(first.get("version") or version), model, first.get("sessionId"))
    builder.user(instruction, timestamp=first.get("timestamp"))
    for record in records:
        kind = record.get("type")
        if kind == "assistant":
            _reply(builder, record)
        elif kind == "tool_result":
            for p in (record.get("message") or {}).get("parts") or []:
                resp = p.get("functionResponse") if isinstance(p, dict) else None
                if isinstance(resp, dict):
                    out = resp.get("response")
                    text = out.get("output") if isinstance(out, dict) and "output" in out else json.dumps(out)
                    builder.result(str(resp.get("id", "")), str(text))
    return builder.to_dict()
