"""Codex's session file (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``) as ATIF.

Each line is ``{timestamp, type, payload}``: ``session_meta`` (the session, the CLI version), ``response_item``
(what went to and came from the model: assistant ``message``, ``reasoning``, ``function_call`` /
``custom_tool_call`` and their ``*_output``), ``event_msg`` (``token_count`` with the last call's usage). The
``--json`` output (``codex.txt``) ends with ``turn.completed`` carrying the agent's own usage count.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentcompass.harnesses._installed import atif

_CALLS = {"function_call", "custom_tool_call", "local_shell_call", "web_search_call"}
_OUTPUTS = {"function_call_output", "custom_tool_call_output"}


def _arguments(payload: dict[str, Any]) -> Any:
    raw = payload.get("arguments", payload.get("input", payload.get("action", {})))
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def _text(content: Any) -> str:
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


class _Steps:
    def __init__(self, builder: atif.Builder) -> None:
        self.b, self.text, self.reasoning, self.calls = builder, [], [], []
        self.usage: dict[str, int] | None = None

    def flush(self) -> None:
        if self.text or self.calls or self.reasoning:
            self.b.agent_step("\n".join(self.text), self.calls, self.usage, reasoning="\n".join(self.reasoning))
        self.text, self.reasoning, self.calls, self.usage = [], [], [], None

    def item(self, p: dict[str, Any]) -> None:
        kind = p.get("type")
        if kind == "message" and p.get("role") == "assistant":
            if self.calls:
                self.flush()
            self.text.append(_text(p.get("content")))
        elif kind == "reasoning":
            self.reasoning.append("\n".join(s.get("text", "") for s in p.get("summary") or []))
        elif kind in _CALLS:
            self.calls.append((str(p.get("call_id") or p.get("id") or ""), str(p.get("name") or kind), _arguments(p)))
        elif kind in _OUTPUTS:
            self.flush()
            out = p.get("output")
            self.b.result(str(p.get("call_id", "")), out if isinstance(out, str) else atif.text_of(out))

    def tokens(self, info: dict[str, Any]) -> None:
        last = (info or {}).get("last_token_usage") or {}
        if last:
            cached = int(last.get("cached_input_tokens") or 0)
            usage = {"prompt": int(last.get("input_tokens") or 0), "completion": int(last.get("output_tokens") or 0)}
            self.usage = {**usage, "cached": cached}


def convert(sessions: Path, instruction: str, version: str, model: str) -> atif.AtifTrajectory | None:
    files = sorted(Path(sessions).rglob("rollout-*.jsonl"))
    if not files:
        return None
    lines = [line for f in files for line in atif.read_jsonl(f)]
    meta = next((ln.get("payload") or {} for ln in lines if ln.get("type") == "session_meta"), {})
    builder = atif.Builder("codex", str(meta.get("cli_version") or version), model, meta.get("id"))
    builder.user(instruction)
    steps = _Steps(builder)
    for line in lines:
        payload = line.get("payload") or {}
        if line.get("type") == "response_item":
            steps.item(payload)
        elif line.get("type") == "event_msg" and payload.get("type") == "token_count":
            steps.tokens(payload.get("info") or {})
    steps.flush()
    return builder.to_dict()


def reported(log: Path) -> Mapping[str, object] | None:
    """The usage Codex itself counted (the sum of its ``turn.completed`` events in the ``--json`` output)."""
    turns = [e for e in atif.read_jsonl(log) if e.get("type") == "turn.completed"]
    if not turns:
        return None
    total: dict[str, int] = {}
    for event in turns:
        for key, value in (event.get("usage") or {}).items():
            if isinstance(value, int):
                total[key] = total.get(key, 0) + value
    return {"usage": total, "turns": len(turns)}
