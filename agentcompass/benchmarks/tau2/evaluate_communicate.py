"""COMMUNICATE: every ``communicate_info`` string is in one of the agent's messages, matched as the reference's
``CommunicateEvaluator`` matches it (case-insensitive substring of the message with its commas removed)."""

from __future__ import annotations

from collections.abc import Sequence

from agentcompass.benchmarks.tau2.criteria import COMMUNICATE, Criteria
from agentcompass.benchmarks.tau2.reward import Component
from agentcompass.conversation import Message

from .shapes import CommunicateCheck


def has_text_content(message: Message) -> bool:
    return message.content is not None and bool(message.content.strip())


def communicate_checks(messages: Sequence[Message], communicate_info: list[str]) -> list[CommunicateCheck]:
    """One ``CommunicateCheck`` per string: met where an assistant message with text holds it."""
    checks: list[CommunicateCheck] = []
    for info_str in communicate_info:
        found = None
        for message in messages:
            if message.role != "assistant" or not has_text_content(message):
                continue
            assert message.content is not None
            if info_str.lower() in message.content.lower().replace(",", ""):
                found = message
                break
        if found is not None:
            justification = f"Information '{info_str}' communicated in the message:\n '{found.content}'"
        else:
            justification = f"Information '{info_str}' not communicated."
        checks.append({"info": info_str, "met": found is not None, "justification": justification})
    return checks


def communicate_reward(criteria: Criteria, messages: Sequence[Message]) -> Component:
    """``CommunicateEvaluator.calculate_reward``: 1.0 when every string is communicated (or there is none)."""
    if not criteria.communicate_info:
        return Component(
            reward=1.0, info={"note": "No communicate_info to evaluate"}, reward_breakdown={COMMUNICATE: 1.0}
        )
    checks = communicate_checks(messages, criteria.communicate_info)
    reward = 1.0 if all(c["met"] for c in checks) else 0.0
    return Component(reward=reward, communicate_checks=checks, reward_breakdown={COMMUNICATE: reward})
