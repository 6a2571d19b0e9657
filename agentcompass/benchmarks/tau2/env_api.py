"""How a conversation uses a τ²-bench domain environment (``agentcompass.benchmarks.tau2.domains``).

The environment is read through the reference environment's methods or the domains package's names, whichever it
has: the policy (``get_policy()`` or ``policy``), the agent's tools (``get_tools()`` or ``tool_schemas()``), the
user's tools (``get_user_tools(include)`` or ``user_tool_schemas()``; absent, raising or empty: none), a tool call's
result (``get_response(call)``: a ``(content, error)`` pair, or a message with ``content`` and ``error``), and, when it
has them, ``set_state(initialization_data, initialization_actions, message_history)`` and ``sync_tools()``. Tools
are OpenAI chat form dicts, or objects with an ``openai_schema``.
"""

from __future__ import annotations

from typing import Any


def schemas(tools: Any) -> list[dict[str, Any]]:
    """Tools in OpenAI chat form (``Tool.openai_schema`` where the environment gives tool objects)."""
    return [t if isinstance(t, dict) else dict(t.openai_schema) for t in tools or []]


def policy(env: Any) -> str:
    getter = getattr(env, "get_policy", None)
    return str(getter() if callable(getter) else env.policy)


def agent_tools(env: Any) -> list[dict[str, Any]]:
    getter = getattr(env, "get_tools", None) or env.tool_schemas
    return schemas(getter())


def user_tools(env: Any, include: list[str] | None) -> list[dict[str, Any]] | None:
    """The user's tools as ``build_user`` gets them: ``get_user_tools(include=task.user_tools) or None``."""
    try:
        getter = getattr(env, "get_user_tools", None)
        if getter is not None:
            tools = schemas(getter(include=include))
        else:
            tools = schemas(env.user_tool_schemas())
            if include is not None:
                tools = [t for t in tools if t["function"]["name"] in include]
    except Exception:  # the reference: a domain without user tools raises, and the user then has none
        return None
    return tools or None


def response(env: Any, call: Any) -> tuple[str | None, bool]:
    """``get_response(call)`` as ``(content, error)``."""
    result = env.get_response(call)
    if isinstance(result, tuple):
        content, error = result
        return content, bool(error)
    return getattr(result, "content", None), bool(getattr(result, "error", False))


def set_state(env: Any, initial_state: dict[str, Any]) -> None:
    """Apply a task's ``initial_state`` (the orchestrator's ``_initialize_environment``), where the env can."""
    setter = getattr(env, "set_state", None)
    if setter is not None:
        setter(
            initial_state.get("initialization_data"),
            initial_state.get("initialization_actions"),
            initial_state.get("message_history") or [],
        )


def sync_tools(env: Any) -> None:
    sync = getattr(env, "sync_tools", None)
    if sync is not None:
        sync()
