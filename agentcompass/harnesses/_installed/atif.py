"""An ATIF trajectory (``schema_version: ATIF-v1.2``, as the terminus2 harness writes) built from an agent's native
log: a ``user`` step with the instruction, one ``agent`` step per model reply (its text, its tool calls), each
tool's result attached to the step that called it as an observation. The viewer and ``export harbor`` read it."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

SCHEMA_VERSION = "ATIF-v1.2"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file; other lines (the agent's plain output) are skipped."""
    out = []
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def text_of(value: Any) -> str:
    """Text of a tool result or message content (a string, or a list of blocks with ``text``)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(text_of(v.get("text", v) if isinstance(v, dict) else v) for v in value)
    if isinstance(value, dict) and "text" in value:
        return str(value["text"])
    return json.dumps(value, ensure_ascii=False)


class Builder:
    """Collects steps; :meth:`to_dict` is the trajectory."""

    def __init__(self, agent: str, version: str, model: str, session_id: str | None = None) -> None:
        self.agent = {"name": agent, "version": version, "model_name": model}
        self.session_id = session_id or str(uuid.uuid4())
        self.steps: list[dict[str, Any]] = []
        self._calls: dict[str, dict[str, Any]] = {}  # tool call id -> the step that made it
        self.totals = {"prompt": 0, "completion": 0, "cached": 0}
        self.extra: dict[str, Any] = {}

    def _add(self, source: str, message: str, **fields: Any) -> dict[str, Any]:
        step: dict[str, Any] = {"step_id": len(self.steps) + 1, "source": source, "message": message}
        step.update({k: v for k, v in fields.items() if v is not None})
        self.steps.append(step)
        return step

    def user(self, message: str, timestamp: str | None = None) -> dict[str, Any]:
        return self._add("user", message, timestamp=timestamp)

    def system(self, message: str, **extra: Any) -> dict[str, Any]:
        return self._add("system", message, extra=extra or None)

    def agent_step(
        self,
        message: str,
        calls: list[tuple[str, str, Any]] | None = None,
        usage: dict[str, int] | None = None,
        timestamp: str | None = None,
        reasoning: str | None = None,
    ) -> dict[str, Any]:
        """A model reply: its text and its tool calls ``(id, name, arguments)``; ``usage`` in tokens
        (``prompt``, ``completion``, ``cached``)."""
        metrics = None
        if usage:
            metrics = {
                "prompt_tokens": int(usage.get("prompt", 0)),
                "completion_tokens": int(usage.get("completion", 0)),
                "cached_tokens": int(usage.get("cached", 0)),
            }
            for key in self.totals:
                self.totals[key] += int(usage.get(key, 0))
        step = self._add(
            "agent",
            message,
            timestamp=timestamp,
            model_name=self.agent["model_name"],
            reasoning_content=reasoning or None,
            metrics=metrics,
        )
        if calls:
            step["tool_calls"] = [
                {"tool_call_id": cid, "function_name": name, "arguments": args} for cid, name, args in calls
            ]
            for cid, _name, _args in calls:
                self._calls[cid] = step
        return step

    def result(self, call_id: str, content: str) -> None:
        """The output of tool call ``call_id``, attached to the step that made it."""
        step = self._calls.get(call_id) or (self.steps[-1] if self.steps else self.user(""))
        results = step.setdefault("observation", {"results": []})["results"]
        results.append({"source_call_id": call_id, "content": content})

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "session_id": self.session_id,
            "agent": self.agent,
            "steps": self.steps,
            "final_metrics": {
                "total_prompt_tokens": self.totals["prompt"],
                "total_completion_tokens": self.totals["completion"],
                "total_cached_tokens": self.totals["cached"],
                "total_steps": len(self.steps),
            },
            "extra": self.extra,
        }
