"""How a conversation uses a τ²-bench domain environment (:class:`.domains._base.Environment`): the policy, the
agent's tools, the user's tools as the reference's ``build_user`` gets them, a tool call's result, the task's
initial state and the tools' synchronisation after each step."""

from __future__ import annotations

from typing import Any

from .domains import Environment
from .shapes import InitialState, ToolSchema


def policy(env: Environment) -> str:
    return str(env.policy)


def agent_tools(env: Environment) -> list[ToolSchema]:
    return env.tool_schemas()


def user_tools(env: Environment, include: list[str] | None) -> list[ToolSchema] | None:
    """``get_user_tools(include=task.user_tools) or None``: a domain without user tools gives the user none."""
    if env.user_tools is None:
        return None
    tools = env.user_tool_schemas()
    if include is not None:
        tools = [t for t in tools if t["function"]["name"] in include]
    return tools or None


def response(env: Environment, call: Any) -> tuple[str | None, bool]:
    """``get_response(call)`` as ``(content, error)``."""
    content, error = env.get_response(call)
    return content, bool(error)


def set_state(env: Environment, initial_state: InitialState) -> None:
    """Apply a task's ``initial_state`` (the orchestrator's ``_initialize_environment``)."""
    env.set_state(
        initial_state.get("initialization_data"),
        initial_state.get("initialization_actions"),
        initial_state.get("message_history") or [],
    )


def sync_tools(env: Environment) -> None:
    env.sync_tools()
