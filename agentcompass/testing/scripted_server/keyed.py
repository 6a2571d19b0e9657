"""Replies per task: each task's conversation has its own list, and the position in it comes from the request.

A script's ``tasks`` maps a *marker* (text found in the task's requests) to that task's replies. A request belongs
to the task whose marker occurs in its opening text: the system prompt (or instructions) and the first user
message, where every harness puts the task's instruction (Terminus-2's first prompt, mini-swe-agent's task
message) or a conversation's opening user turn. When several markers occur, the longest wins. Its reply is the
one at the number of assistant turns the request already carries: the first request of a conversation gets reply
1, a request that carries two assistant turns gets reply 3, a retried request gets the same reply again. So
concurrent tasks never take each other's replies, and any number of tasks may share one marker.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from agentcompass.errors import ConfigError

_ASSISTANT_ITEMS = {"function_call", "reasoning", "custom_tool_call", "local_shell_call"}


def _text(content: Any) -> str:
    """The text of a message content: a string, or the ``text`` of its blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text(block.get("text", "")) for block in content if isinstance(block, dict))
    return ""


def _messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The conversation items of a chat, Messages or Responses body (a Responses string input: one user item)."""
    items = body.get("messages", body.get("input", []))
    if isinstance(items, str):
        return [{"role": "user", "content": items}]
    return [m for m in items if isinstance(m, dict)] if isinstance(items, list) else []


def _chat_form(body: dict[str, Any]) -> dict[str, Any]:
    """A Gemini API request (``contents``) as the chat form read here; any other body as it is."""
    if "contents" not in body or "messages" in body:
        return body
    from .gemini import conversation

    return conversation(body)


def opening_text(body: dict[str, Any]) -> str:
    """The system prompt (``system``, ``instructions``, system and developer messages) and the first user message."""
    body = _chat_form(body)
    parts = [_text(body.get("system")), _text(body.get("instructions"))]
    first_user = True
    for m in _messages(body):
        role = m.get("role")
        if role in ("system", "developer"):
            parts.append(_text(m.get("content")))
        elif role == "user" and first_user:
            parts.append(_text(m.get("content")))
            first_user = False
    return "\n".join(p for p in parts if p)


def turn_index(body: dict[str, Any]) -> int:
    """How many assistant turns the request carries: its assistant messages (chat, Messages); for a Responses
    ``input``, its runs of assistant items (a message, its ``function_call`` and ``reasoning`` items: one turn);
    for a Gemini ``contents``, its ``model`` contents."""
    body = _chat_form(body)
    if "messages" in body:
        return sum(1 for m in _messages(body) if m.get("role") == "assistant")
    n, in_turn = 0, False
    for m in _messages(body):
        is_assistant = m.get("role") == "assistant" or m.get("type") in _ASSISTANT_ITEMS
        if is_assistant and not in_turn:
            n += 1
        in_turn = is_assistant
    return n


class TaskScript:
    """The replies of a ``tasks`` mapping (marker -> list of replies), chosen from each request (thread-safe)."""

    def __init__(
        self,
        tasks: dict[str, list[Any]],
        default_reply: dict[str, Any] | None = None,
        normalize: Callable[[Any, str], dict[str, Any]] = lambda reply, where: reply,
    ) -> None:
        """``normalize(reply, where)``: each reply in the server's form (the script's ``normalize_reply``)."""
        if not isinstance(tasks, dict) or not tasks:
            raise ConfigError(f"tasks: expected a mapping of marker text to a list of replies, got {tasks!r}")
        self._tasks: dict[str, list[dict[str, Any]]] = {}
        for marker, replies in tasks.items():
            if not isinstance(marker, str) or not isinstance(replies, list):
                raise ConfigError(f"tasks: {marker!r}: expected a text marker mapped to a list of replies")
            self._tasks[marker] = [normalize(r, f"tasks[{marker!r}] reply #{i + 1}") for i, r in enumerate(replies)]
        self._markers = sorted(self._tasks, key=len, reverse=True)  # the longest marker that occurs wins
        self._default = default_reply
        self._lock = threading.Lock()
        self.n_used = 0

    def marker_of(self, body: dict[str, Any]) -> str | None:
        """The marker of the task ``body`` belongs to, or None."""
        text = opening_text(body)
        return next((m for m in self._markers if m in text), None)

    def next(self, request: dict[str, Any]) -> dict[str, Any]:
        body = request.get("body") or {}
        marker = self.marker_of(body)
        if marker is None:
            return self._default or _exhausted(
                f"no marker of the script's tasks occurs in the request ({_short(body)})"
            )
        replies, index = self._tasks[marker], turn_index(body)
        if index < len(replies):
            with self._lock:
                self.n_used += 1
            return replies[index]
        return self._default or _exhausted(
            f"task {marker!r} has {len(replies)} replies; the request carries {index} assistant turns "
            f"and needs reply #{index + 1}"
        )


def _short(body: dict[str, Any]) -> str:
    text = " ".join(opening_text(body).split())
    return f"its opening text: {text[:160]!r}" if text else "it has no system prompt or user message"


def _exhausted(message: str) -> dict[str, Any]:
    return {
        "status": 500,
        "headers": {"x-should-retry": "false"},
        "code": "script_exhausted",
        "error": f"scripted server: {message}",
    }
