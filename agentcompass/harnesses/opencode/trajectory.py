"""opencode's ``run --format=json`` output as ATIF: one JSON object per line, ``type`` ``step_start`` (a model
call begins), ``text`` / ``reasoning`` (its text), ``tool_use`` (a tool call with its input and output in
``part.state``), ``step_finish`` (the call's tokens and opencode's own cost), ``error``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentcompass.harnesses._installed import atif


class _Step:
    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: list[tuple[str, str, Any]] = []
        self.outputs: list[tuple[str, str]] = []


def _tokens(part: dict[str, Any]) -> dict[str, int]:
    t = part.get("tokens") or {}
    cache = t.get("cache") or {}
    cached = int(cache.get("read") or 0)
    prompt = int(t.get("input") or 0) + cached + int(cache.get("write") or 0)
    return {"prompt": prompt, "completion": int(t.get("output") or 0) + int(t.get("reasoning") or 0), "cached": cached}


def convert(log: Path, instruction: str, version: str, model: str) -> atif.AtifTrajectory | None:
    events = atif.read_jsonl(log)
    if not events:
        return None
    builder = atif.Builder("opencode", version, model, events[0].get("sessionID"))
    builder.user(instruction)
    step = _Step()
    errors: list[object] = []
    for event in events:
        kind, part = event.get("type"), event.get("part") or {}
        if kind == "text":
            step.text.append(str(part.get("text", "")))
        elif kind == "reasoning":
            step.reasoning.append(str(part.get("text", "")))
        elif kind == "tool_use":
            state = part.get("state") or {}
            cid = str(part.get("callID") or part.get("id") or "")
            step.calls.append((cid, str(part.get("tool", "")), state.get("input", {})))
            step.outputs.append((cid, atif.text_of(state.get("output", state.get("error", "")))))
        elif kind == "step_finish":
            builder.agent_step("\n".join(step.text), step.calls, _tokens(part), reasoning="\n".join(step.reasoning))
            for cid, out in step.outputs:
                builder.result(cid, out)
            step = _Step()
        elif kind == "error":
            errors.append(event.get("error") or part)
    if errors:
        builder.extra["errors"] = errors
    return builder.to_dict()


def reported(log: Path) -> Mapping[str, object] | None:
    """opencode's own count: the sum of its ``step_finish`` tokens and cost."""
    finishes = [e.get("part") or {} for e in atif.read_jsonl(log) if e.get("type") == "step_finish"]
    if not finishes:
        return None
    total = {"prompt": 0, "completion": 0, "cached": 0}
    for part in finishes:
        for key, value in _tokens(part).items():
            total[key] += value
    return {"tokens": total, "cost": sum(float(p.get("cost") or 0) for p in finishes), "steps": len(finishes)}
