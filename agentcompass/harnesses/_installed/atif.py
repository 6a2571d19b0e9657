"""An ATIF trajectory (``schema_version: ATIF-v1.2``, as the terminus2 harness writes) built from an agent's native
log: a ``user`` step with the instruction, one ``agent`` step per model reply (its text, its tool calls), each
tool's result attached to the step that called it as an observation. The viewer and ``export harbor`` read it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict

SCHEMA_VERSION = "ATIF-v1.2"


class AtifAgent(TypedDict):
    """An ATIF trajectory's ``agent`` object (Harbor's ATIF-v1.2 ``Agent``)."""

    name: str
    version: str
    model_name: str
    extra: NotRequired[dict[str, object]]


class AtifToolCall(TypedDict):
    """One tool call of an ATIF step (Harbor's ATIF-v1.2 ``ToolCall``); ``arguments`` as the agent gave them."""

    tool_call_id: str
    function_name: str
    arguments: object


class AtifResult(TypedDict):
    """One result of an ATIF step's observation (Harbor's ATIF-v1.2 ``ObservationResult``)."""

    source_call_id: NotRequired[str]
    content: str


class AtifObservation(TypedDict):
    """An ATIF step's ``observation`` (Harbor's ATIF-v1.2 ``Observation``)."""

    results: list[AtifResult]


class AtifMetrics(TypedDict):
    """An ATIF step's token ``metrics`` (Harbor's ATIF-v1.2 ``Metrics``)."""

    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    cost_usd: NotRequired[float | None]


class AtifStep(TypedDict):
    """One step of an ATIF trajectory (Harbor's ATIF-v1.2 ``Step``), keys in the order they are written."""

    step_id: int
    timestamp: NotRequired[str]
    source: Literal["user", "agent", "system"]
    message: str
    model_name: NotRequired[str]
    reasoning_content: NotRequired[str]
    metrics: NotRequired[AtifMetrics]
    extra: NotRequired[dict[str, object]]
    tool_calls: NotRequired[list[AtifToolCall]]
    observation: NotRequired[AtifObservation]


class AtifFinalMetrics(TypedDict):
    """An ATIF trajectory's ``final_metrics`` (Harbor's ATIF-v1.2 ``FinalMetrics``)."""

    total_prompt_tokens: int
    total_completion_tokens: int
    total_cached_tokens: int
    total_cost_usd: NotRequired[float | None]
    total_steps: int


class AtifTrajectory(TypedDict):
    """An ATIF trajectory document (Harbor's ATIF-v1.2 ``Trajectory``), as ``trajectory.json`` holds it."""

    schema_version: str
    session_id: str
    agent: AtifAgent
    steps: list[AtifStep]
    final_metrics: AtifFinalMetrics
    extra: dict[str, object]


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
        self.agent: AtifAgent = {"name": agent, "version": version, "model_name": model}
        self.session_id = session_id or str(uuid.uuid4())
        self.steps: list[AtifStep] = []
        self._calls: dict[str, AtifStep] = {}  # tool call id -> the step that made it
        self.totals = {"prompt": 0, "completion": 0, "cached": 0}
        self.extra: dict[str, object] = {}

    def _add(
        self,
        source: Literal["user", "agent", "system"],
        message: str,
        timestamp: str | None = None,
        model_name: str | None = None,
        reasoning_content: str | None = None,
        metrics: AtifMetrics | None = None,
        extra: dict[str, object] | None = None,
    ) -> AtifStep:
        step: AtifStep = {"step_id": len(self.steps) + 1, "source": source, "message": message}
        if timestamp is not None:
            step["timestamp"] = timestamp
        if model_name is not None:
            step["model_name"] = model_name
        if reasoning_content is not None:
            step["reasoning_content"] = reasoning_content
        if metrics is not None:
            step["metrics"] = metrics
        if extra is not None:
            step["extra"] = extra
        self.steps.append(step)
        return step

    def user(self, message: str, timestamp: str | None = None) -> AtifStep:
        return self._add("user", message, timestamp=timestamp)

    def system(self, message: str, **extra: object) -> AtifStep:
        return self._add("system", message, extra=extra or None)

    def agent_step(
        self,
        message: str,
        calls: list[tuple[str, str, Any]] | None = None,
        usage: Mapping[str, int] | None = None,
        timestamp: str | None = None,
        reasoning: str | None = None,
    ) -> AtifStep:
        """A model reply: its text and its tool calls ``(id, name, arguments)``; ``usage`` in tokens
        (``prompt``, ``completion``, ``cached``)."""
        metrics: AtifMetrics | None = None
        if usage:
            metrics = {
                "prompt_tokens": int(usage.get("prompt", 0)),
                "completion_tokens": int(usage.get("completion", 0)),
                "cached_tokens": int(usage.get("cached", 0)),
            }
            self.totals["prompt"] += metrics["prompt_tokens"]
            self.totals["completion"] += metrics["completion_tokens"]
            self.totals["cached"] += metrics["cached_tokens"]
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

    def to_dict(self) -> AtifTrajectory:
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
