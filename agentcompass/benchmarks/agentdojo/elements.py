"""The LLM elements put into the package's pipeline in place of its LLM, and the message forms between the two sides.

Imported only once the ``agentdojo`` package is known to be importable (:func:`._package.module`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agentdojo.agent_pipeline.base_pipeline_element import BasePipelineElement
from agentdojo.functions_runtime import EmptyEnv, FunctionCall
from agentdojo.types import ChatAssistantMessage, get_text_content_as_str, text_content_block_from_string

from agentcompass.conversation import Message, ToolUse


def empty_answer() -> Any:
    """The answer of an agent that says nothing more (a stopped conversation): an empty text, no calls."""
    return ChatAssistantMessage(role="assistant", content=[text_content_block_from_string("")], tool_calls=None)


def to_package(message: Message) -> Any:
    """An agent's message as the package's ``ChatAssistantMessage`` (as its OpenAI element converts a reply)."""
    calls = [FunctionCall(function=c.name, args=dict(c.arguments), id=c.id) for c in message.tool_calls]
    content = None if message.content is None else [text_content_block_from_string(message.content)]
    return ChatAssistantMessage(role="assistant", content=content, tool_calls=calls or None)


def from_package(message: Any) -> Message:
    """A message of the package's pipeline as the agent sees it: a tool result is its error when the call failed,
    else its text (as the package's OpenAI element sends it)."""
    text = get_text_content_as_str(message["content"]) if message["content"] is not None else None
    if message["role"] == "tool":
        error = message.get("error")
        return Message(role="tool", content=error or text, tool_call_id=message.get("tool_call_id"), error=bool(error))
    calls = [
        ToolUse(id=str(c.id or ""), name=c.function, arguments=dict(c.args)) for c in message.get("tool_calls") or []
    ]
    return Message(role=str(message["role"]), content=text, tool_calls=calls)


class AgentElement(BasePipelineElement):  # type: ignore[misc]
    """The pipeline's LLM: ``answer(messages)`` gives the agent's reply to the messages so far (blocking)."""

    def __init__(self, name: str, answer: Callable[[list[Any]], Any]) -> None:
        self.name = name
        self._answer = answer

    def query(
        self,
        query: str,
        runtime: Any,
        env: Any = EmptyEnv(),  # noqa: B008 - the package's signature
        messages: Sequence[Any] = (),
        extra_args: dict[str, object] | None = None,
    ) -> tuple[str, Any, Any, Sequence[Any], dict[str, object]]:
        reply = self._answer(list(messages))
        return query, runtime, env, [*messages, reply], extra_args if extra_args is not None else {}


class ReplayElement(AgentElement):
    """The pipeline's LLM answering with recorded replies in order, then with empty answers."""

    def __init__(self, name: str, replies: Sequence[Any]) -> None:
        pending = list(replies)
        super().__init__(name, lambda _messages: pending.pop(0) if pending else empty_answer())
