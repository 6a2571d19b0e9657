"""The terminus2 trajectory in ATIF form (``schema_version: ATIF-v1.2``), saved atomically after every turn.

Steps: the first prompt (``source: user``); one ``agent`` step per episode: ``Analysis: ...`` / ``Plan: ...`` of the
reply (the raw reply when it did not parse), its tool calls (``bash_command`` with ``{keystrokes, duration}``,
``mark_task_complete``), the prompt that was sent back and the token metrics of the episode's calls; for a
context summarization a ``system`` step (the three texts in ``extra``) and a ``user`` step with the handoff. Run facts
(``n_episodes``, ``summarization_count``, exit status) go to the root ``extra`` object, the ATIF place for
producer-specific data.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from agentcompass.harnesses.atif import AtifAgent, AtifMetrics, AtifResult, AtifStep, AtifToolCall, AtifTrajectory
from agentcompass.interfaces import Usage
from agentcompass.kit import write_json

SCHEMA_VERSION = "ATIF-v1.2"
AGENT_NAME = "terminus-2"
AGENT_VERSION = "2.0.0"  # Terminus2.version() in Harbor 0.26.0


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _metrics(usage: Usage) -> AtifMetrics:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "cached_tokens": usage.cached_tokens,
        "cost_usd": None if usage.cost_usd is None else round(usage.cost_usd, 8),
    }


class Trajectory:
    """An ATIF trajectory under construction; :meth:`save` writes the current state."""

    def __init__(self, path: Path, model_name: str, extra_agent: dict[str, object] | None = None) -> None:
        self.path = Path(path)
        self.model_name = model_name
        self.session_id = str(uuid.uuid4())
        self.agent: AtifAgent = {
            "name": AGENT_NAME,
            "version": AGENT_VERSION,
            "model_name": model_name,
            "extra": dict(extra_agent or {}),
        }
        self.steps: list[AtifStep] = []
        self.totals = Usage()
        self.extra: dict[str, object] = {"n_episodes": 0, "summarization_count": 0}

    def _add(
        self,
        source: Literal["user", "agent", "system"],
        message: str,
        model_name: str | None = None,
        metrics: AtifMetrics | None = None,
        extra: dict[str, object] | None = None,
    ) -> AtifStep:
        step: AtifStep = {"step_id": len(self.steps) + 1, "timestamp": _now(), "source": source, "message": message}
        if model_name is not None:
            step["model_name"] = model_name
        if metrics is not None:
            step["metrics"] = metrics
        if extra is not None:
            step["extra"] = extra
        self.steps.append(step)
        return step

    def user(self, message: str) -> AtifStep:
        return self._add("user", message)

    def system(self, message: str, usage: Usage | None = None, **extra: object) -> AtifStep:
        if usage is not None:
            self.totals.add(usage)
        return self._add("system", message, metrics=_metrics(usage) if usage else None, extra=extra or None)

    def agent_step(self, message: str, usage: Usage, extra: dict[str, object] | None = None) -> AtifStep:
        """An agent step for one episode; tool calls and the observation are filled in afterwards."""
        self.totals.add(usage)
        extra = {k: v for k, v in (extra or {}).items() if v is not None}
        return self._add("agent", message, model_name=self.model_name, metrics=_metrics(usage), extra=extra or None)

    @staticmethod
    def set_actions(step: AtifStep, episode: int, commands: list[Any], task_complete: bool, observation: str) -> None:
        """Tool calls as Harbor names them (``call_<episode>_<n>``, episode from 0) and the observation, linked
        to its command only when there was exactly one."""
        calls: list[AtifToolCall] = [
            {
                "tool_call_id": f"call_{episode}_{i}",
                "function_name": "bash_command",
                "arguments": {"keystrokes": c.keystrokes, "duration": c.duration},
            }
            for i, c in enumerate(commands, start=1)
        ]
        if task_complete:
            calls.append(
                {
                    "tool_call_id": f"call_{episode}_task_complete",
                    "function_name": "mark_task_complete",
                    "arguments": {},
                }
            )
        if calls:
            step["tool_calls"] = calls
        result: AtifResult = {"content": observation}
        if len(commands) == 1:
            result = {"source_call_id": f"call_{episode}_1", "content": observation}
        step["observation"] = {"results": [result]}

    @staticmethod
    def set_observation(step: AtifStep, content: str) -> None:
        step["observation"] = {"results": [{"content": content}]}

    def to_dict(self) -> AtifTrajectory:
        return {
            "schema_version": SCHEMA_VERSION,
            "session_id": self.session_id,
            "agent": self.agent,
            "steps": self.steps,
            "final_metrics": {
                "total_prompt_tokens": self.totals.input_tokens,
                "total_completion_tokens": self.totals.output_tokens,
                "total_cached_tokens": self.totals.cached_tokens,
                "total_cost_usd": None if self.totals.cost_usd is None else round(self.totals.cost_usd, 8),
                "total_steps": len(self.steps),
            },
            "extra": self.extra,
        }

    def save(self) -> None:
        write_json(self.path, self.to_dict(), ensure_ascii=False)

    def dumps(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"
