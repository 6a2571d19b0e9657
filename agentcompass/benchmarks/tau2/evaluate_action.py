"""ACTION: every gold action is matched by a tool call of the transcript (the agent's or the user's), as the
reference's ``ActionEvaluator`` and ``Action.compare_with_tool_call`` match them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agentcompass.benchmarks.tau2.criteria import ACTION, Criteria
from agentcompass.benchmarks.tau2.reward import Component
from agentcompass.conversation import Message, ToolUse

from .shapes import Action, ActionCheck


def compare_with_tool_call(action: Action, call: ToolUse) -> bool:
    """``Action.compare_with_tool_call``: same name, and equal values on ``compare_args`` (when None: on the
    call's own argument names, so a call without arguments matches any action of its name)."""
    if action["name"] != call.name:
        return False
    compare_args = call.arguments.keys() if action["compare_args"] is None else action["compare_args"]
    if len(compare_args) == 0:
        return True
    tool_args = {k: v for k, v in call.arguments.items() if k in compare_args}
    action_args = {k: v for k, v in action["arguments"].items() if k in compare_args}
    return tool_args == action_args


def tool_calls(messages: Sequence[Message]) -> list[ToolUse]:
    """The calls of the assistant and user messages, in order (``ActionEvaluator.extract_tool_calls``)."""
    return [call for m in messages if m.role in ("assistant", "user") for call in m.tool_calls]


def action_checks(
    messages: Sequence[Message], actions: list[Action], tool_types: Mapping[str, str] | None
) -> list[ActionCheck]:
    """One ``ActionCheck`` per gold action, with the tool's type (read, write, think, generic) where known."""
    calls = tool_calls(messages)
    checks: list[ActionCheck] = []
    for action in actions:
        match = any(compare_with_tool_call(action, call) for call in calls)
        checks.append(
            {
                "action": action,
                "action_match": match,
                "action_reward": 1.0 if match else 0.0,
                "tool_type": None if tool_types is None else tool_types.get(action["name"]),
            }
        )
    return checks


def action_reward(criteria: Criteria, messages: Sequence[Message], tool_types: Mapping[str, str] | None) -> Component:
    """``ActionEvaluator.calculate_reward``: 1.0 when every gold action is matched (or there is none)."""
    if not criteria.actions:
        return Component(reward=1.0, info={"note": "No actions to evaluate"}, reward_breakdown={ACTION: 1.0})
    checks = action_checks(messages, criteria.actions, tool_types)
    reward = 1.0 if all(c["action_match"] for c in checks) else 0.0
    return Component(reward=reward, action_checks=checks, reward_breakdown={ACTION: reward})
