"""Scripted conversations for the agreement test, one set per mode (bash tool calls / text actions).

Every reply carries its usage (so cost is the same on both sides) and every tool call its id (so the wire
is). Each scenario lists the replies, overrides of the config (the same on both sides) and what the run must
end with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

USAGE = {"input_tokens": 100, "output_tokens": 10}  # $0.04 per call at PRICES
COSTLY = {"input_tokens": 1000, "output_tokens": 100}  # $0.40 per call
PRICES = {"input_per_mtok": 200.0, "output_per_mtok": 2000.0}
REGISTRY = {
    "input_cost_per_token": 0.0002,
    "output_cost_per_token": 0.002,
    "litellm_provider": "openai",
    "mode": "chat",
}
TIMEOUT_S = 2
FIX = "sed -i 's/return a - b/return a + b/' calc.py"
PATCH = "git diff -- calc.py > patch.txt"
SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt"


@dataclass
class Scenario:
    name: str
    config: str
    model_class: str
    replies: list[Any]
    exit_status: str
    agent: dict[str, Any] = field(default_factory=dict)


def tool(n: int, *commands: str, text: str = "THOUGHT: next step.", usage: dict | None = None) -> dict[str, Any]:
    calls = [{"id": f"call_{n}_{i}", "name": "bash", "arguments": {"command": c}} for i, c in enumerate(commands)]
    return {"text": text, "tool_calls": calls, "usage": usage or USAGE}


def raw_call(n: int, name: str, arguments: str) -> dict[str, Any]:
    return {
        "text": "THOUGHT: odd call.",
        "tool_calls": [{"id": f"call_{n}_0", "name": name, "arguments": arguments}],
        "usage": USAGE,
    }


def text(body: str, *, finish_reason: str = "stop", usage: dict | None = None) -> dict[str, Any]:
    return {"text": body, "finish_reason": finish_reason, "usage": usage or USAGE}


def block(cmd: str, *, usage: dict | None = None) -> dict[str, Any]:
    return text(f"THOUGHT: next step.\n\n```mswea_bash_command\n{cmd}\n```", usage=usage)


def toolcall_scenarios() -> list[Scenario]:
    c, m = "swebench", "litellm"
    flow = [
        text("I will just think about it."),  # no tool call: format error
        tool(2, "ls", "cat calc.py"),  # two calls in one reply
        tool(3, "sleep 10"),  # times out
        tool(4, "seq 1 3000"),  # 13,893 characters: truncated
        raw_call(5, "bash", '{"command": "ls"'),  # arguments that are not JSON
        raw_call(6, "python", '{"code": "1"}'),  # an unknown tool
        tool(7, FIX),
        tool(8, PATCH),
        tool(9, SUBMIT),
    ]
    return [
        Scenario("tool-flow", c, m, flow, "Submitted"),
        Scenario(
            "tool-step-limit",
            c,
            m,
            [tool(1, "ls"), tool(2, "cat calc.py"), tool(3, "ls -a")],
            "LimitsExceeded",
            {"step_limit": 2},
        ),
        Scenario(
            "tool-cost-limit",
            c,
            m,
            [tool(i, f"echo {i}", usage=COSTLY) for i in range(1, 6)],
            "LimitsExceeded",
            {"cost_limit": 1.0},
        ),
        Scenario(
            "tool-repeated-format-error", c, m, [text("no"), text("still no"), text("never")], "RepeatedFormatError"
        ),
    ]


def text_scenarios() -> list[Scenario]:
    c, m = "swebench_backticks", "litellm_textbased"
    two = "THOUGHT\n\n```mswea_bash_command\nls\n```\n\n```mswea_bash_command\npwd\n```"
    flow = [
        text("No action here."),  # zero actions
        block("ls"),
        text(two),  # two actions
        block("sleep 10"),  # times out
        text("THOUGHT: long answer\n\n```mswea_bash_command\nls", finish_reason="length"),  # cut off
        block("seq 1 3000"),
        block(FIX),
        block(PATCH),
        block(SUBMIT),
    ]
    return [
        Scenario("text-flow", c, m, flow, "Submitted"),
        Scenario(
            "text-step-limit",
            c,
            m,
            [block("ls"), block("cat calc.py"), block("ls -a")],
            "LimitsExceeded",
            {"step_limit": 2},
        ),
        Scenario(
            "text-cost-limit",
            c,
            m,
            [block(f"echo {i}", usage=COSTLY) for i in range(1, 6)],
            "LimitsExceeded",
            {"cost_limit": 1.0},
        ),
        Scenario("text-repeated-format-error", c, m, [text("no"), text(two), text("never")], "RepeatedFormatError"),
    ]
