"""Gemini CLI's chat recording (``~/.gemini/tmp/<project>/chats/session-*.json``, or the ``.jsonl`` form of newer
versions) as ATIF, and the usage it reports.

The ``.json`` form is one object ``{sessionId, messages: [...]}``; the ``.jsonl`` form has one record a line: the
session's metadata (``sessionId``...), messages (``id``, ``type``...) and later records of a message id that update
it. A message of ``type: "gemini"`` is a model reply: ``content`` (its text), ``thoughts`` (``[{subject,
description}]``), ``tokens`` (``input``, ``output``, ``cached``, ``thoughts``, ``tool``) and ``toolCalls`` (``id``,
``name``, ``args``, ``result``: the ``functionResponse`` parts sent back); ``user`` messages are prompts; ``info``
and ``error`` messages are the program's own notices (kept out of the steps).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentcompass.harnesses._installed import atif


def load(agent_dir: Path, stem: str) -> dict[str, Any] | None:
    """The session (``{sessionId, messages}``) saved in ``agent_dir`` as ``<stem>.json`` or ``<stem>.jsonl``."""
    whole = agent_dir / f"{stem}.json"
    if whole.is_file():
        data = json.loads(whole.read_text())
        return data if isinstance(data, dict) else None
    lines = agent_dir / f"{stem}.jsonl"
    if not lines.is_file():
        return None
    meta: dict[str, Any] = {}
    messages: dict[str, dict[str, Any]] = {}
    for record in atif.read_jsonl(lines):
        mid = record.get("id")
        if isinstance(mid, str) and ("type" in record or mid in messages):
            messages.setdefault(mid, {}).update(record)
        elif "sessionId" in record:
            meta.update({k: v for k, v in record.items() if k != "messages"})
    return {**meta, "messages": list(messages.values())} if messages or meta else None


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return content if isinstance(content, str) else ""


def _usage(tokens: dict[str, Any]) -> dict[str, int]:
    def n(key: str) -> int:
        return int(tokens.get(key) or 0)

    return {"prompt": n("input"), "completion": n("output") + n("thoughts") + n("tool"), "cached": n("cached")}


def _output(result: Any) -> str:
    outs = []
    for part in result if isinstance(result, list) else []:
        resp = (part.get("functionResponse") or {}).get("response") if isinstance(part, dict) else None
        if isinstance(resp, dict):
            outs.append(str(resp["output"]) if "output" in resp else json.dumps(resp))
    return "\n".join(outs)


def convert(agent_dir: Path, stem: str, instruction: str, version: str, model: str) -> atif.AtifTrajectory | None:
    session = load(agent_dir, stem)
    if not session or not session.get("messages"):
        return None
    builder = atif.Builder("gemini-cli", version, model, session.get("sessionId"))
    builder.user(instruction, timestamp=session.get("startTime"))
    for message in session["messages"]:
        if message.get("type") != "gemini":
            continue
        calls = [
            (str(c.get("id", "")), str(c.get("name", "")), c.get("args", {})) for c in message.get("toolCalls") or []
        ]
        thoughts = "\n".join(
            f"{t.get('subject', '')}: {t.get('description', '')}".strip(": ") for t in message.get("thoughts") or []
        )
        usage = _usage(message["tokens"]) if isinstance(message.get("tokens"), dict) else None
        ts = message.get("timestamp")
        builder.agent_step(_text(message.get("content")), calls, usage, timestamp=ts, reasoning=thoughts or None)
        for call in message.get("toolCalls") or []:
            builder.result(str(call.get("id", "")), _output(call.get("result")))
    return builder.to_dict()


def reported(agent_dir: Path, stem: str) -> Mapping[str, object] | None:
    """The tokens the session file reports (summed over its model replies), as Harbor reads them."""
    session = load(agent_dir, stem)
    replies = [m.get("tokens") or {} for m in (session or {}).get("messages") or [] if m.get("type") == "gemini"]
    if not replies:
        return None
    totals = [_usage(t) for t in replies]
    return {k: sum(t[k] for t in totals) for k in ("prompt", "completion", "cached")}
