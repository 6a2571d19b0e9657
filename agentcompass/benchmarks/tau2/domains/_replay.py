"""``Environment.set_state`` of the reference: initialization data merged into the DBs, initialization actions run,
then the mutating tool calls of a message history replayed (reads, thinks and unknown tools skipped), each checked
against the recorded tool message."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agentcompass.benchmarks.tau2.domains._base import field_of

if TYPE_CHECKING:
    from agentcompass.benchmarks.tau2.domains._base import Environment


def _tool_message_id(message: Any) -> Any:
    """A tool message's call id: ``id`` in tau2's messages, ``tool_call_id`` in agentcompass transcripts."""
    value = field_of(message, "id")
    return value if value is not None else field_of(message, "tool_call_id")


def actions_from_messages(messages: list[Any]) -> list[tuple[Any, Any]]:
    """The (tool call, tool message) pairs of a history; raises ValueError on a misplaced or mismatched message."""
    pending = list(messages)[::-1]
    actions = []
    while pending:
        message = pending.pop()
        role = field_of(message, "role")
        if role == "tool":
            raise ValueError("Tool message not expected. Tool messages should always follow a tool call.")
        if role in ("assistant", "user") and field_of(message, "tool_calls") is not None:
            for call in field_of(message, "tool_calls"):
                if not pending:
                    raise ValueError("Tool message expected. Got None.")
                answer = pending.pop()
                if field_of(answer, "role") != "tool":
                    raise ValueError(f"Tool message expected. Got {field_of(answer, 'role')} message")
                if field_of(call, "id") != _tool_message_id(answer):
                    raise ValueError(
                        f"Tool call id mismatch. Got {field_of(call, 'id')} and {_tool_message_id(answer)}"
                    )
                actions.append((call, answer))
    return actions


def _loaded(content: Any) -> Any:
    try:
        return json.loads(content)
    except (json.JSONDecodeError, TypeError):
        return content


def set_state(
    env: Environment,
    initialization_data: Any,
    initialization_actions: list[Any] | None,
    message_history: list[Any],
    strict: bool = True,
) -> None:
    if env.solo_mode:
        assert all(field_of(m, "role") != "user" for m in message_history), "User messages are not allowed in solo mode"
    if initialization_data is not None:
        _apply_initialization_data(env, initialization_data)
    for action in initialization_actions or []:
        env.run_env_function_call(action)
    for call, expected in actions_from_messages(message_history):
        name = field_of(call, "name")
        if not env._has_tool(name) or not env.is_mutating(name):
            continue  # a hallucinated tool changed nothing; reads do not change state
        content, _ = env.get_response(call)
        if _loaded(content) != _loaded(field_of(expected, "content")) and strict:
            raise ValueError(
                f"Tool call:\n{call}\n\nReturned:\n{content}\n\nExpected:\n{field_of(expected, 'content')}"
            )
    env.sync_tools()


def _apply_initialization_data(env: Environment, data: Any) -> None:
    agent_data, user_data = field_of(data, "agent_data"), field_of(data, "user_data")
    if agent_data is not None:
        assert env.tools is not None
        env.tools.update_db(agent_data)
        if env.user_tools is not None and env.user_tools.db is not None:
            env.user_tools.db = env.tools.db  # update_db made a new instance: both kits share it again
    if user_data is not None:
        assert env.user_tools is not None
        env.user_tools.update_db(user_data)
        if env.tools is not None and env.tools.db is not None:
            env.tools.db = env.user_tools.db
