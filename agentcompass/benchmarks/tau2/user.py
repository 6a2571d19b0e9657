"""τ²-bench's user simulator in text mode (``tau2.user.user_simulator.UserSimulator``), on a :class:`ModelClient`.

It keeps its own history as the reference does (``UserState``): the agent's text messages, its own replies and the
results of its own tool calls; each request is its system prompt followed by that history with the roles flipped
(the agent speaks as ``user``, the simulated user as ``assistant``, ``UserState.flip_roles``). It sends its tools
(telecom's user tools) with ``tool_choice: auto`` when it has some, and the reference's request parameters
(``DEFAULT_LLM_ARGS_USER``, plus ``seed`` when the conversation has one, as ``set_seed`` does).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from agentcompass.conversation import Message, ToolUse
from agentcompass.errors import ModelError
from agentcompass.interfaces import ModelClient

from . import prompts
from .shapes import ChatToolCall, ToolSchema

DEFAULT_USER_ARGS: dict[str, object] = {"temperature": 0.0}  # tau2.config.DEFAULT_LLM_ARGS_USER


def has_text(message: Message) -> bool:
    """The reference's ``has_text_content`` / ``has_content``: text that is not only whitespace."""
    return message.content is not None and bool(message.content.strip())


def parse_arguments(text: str) -> dict[str, object]:
    """A call's arguments as the reference parses them (``json.loads``); raises ValueError when not an object."""
    value = json.loads(text or "{}")
    if not isinstance(value, dict):
        raise ValueError(f"tool call arguments are not a JSON object: {text!r}")
    return value


def chat_call(call: ToolUse) -> ChatToolCall:
    """A call as the reference sends it back to a model (its arguments re-serialized with ``json.dumps``)."""
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}


class UserSimulator:
    """The simulated user of one conversation.

    ``root``: the tau2-bench checkout; ``instructions``: ``str(task.user_scenario)``
    (:func:`prompts.user_instructions`); ``model``: the ``user`` model role's client; ``tools``: the user's function
    tools in OpenAI chat form (None: none, as the reference has for airline and retail); ``llm_args``: request
    parameters (default :data:`DEFAULT_USER_ARGS`); ``seed``: sent as ``seed`` when not None."""

    def __init__(
        self,
        root: Path,
        instructions: str,
        model: ModelClient,
        *,
        tools: Sequence[ToolSchema] | None = None,
        llm_args: dict[str, object] | None = None,
        seed: int | None = None,
    ) -> None:
        self.model = model
        self.tools: list[dict[str, object]] | None = [dict(t) for t in tools] if tools else None
        self.llm_args = dict(DEFAULT_USER_ARGS if llm_args is None else llm_args)
        if seed is not None:
            self.llm_args["seed"] = seed
        self.system_prompt = prompts.user_system_prompt(root, instructions, use_tools=self.tools is not None)
        self.signals = prompts.stop_signals(root)
        self.messages: list[Message] = []

    @staticmethod
    def accepts_history(message: Message) -> bool:
        """``is_valid_user_history_message``: user messages, the agent's text, tool results of the user's calls."""
        return (
            message.role == "user"
            or (message.role == "assistant" and not message.tool_calls)
            or (message.role == "tool" and message.requestor == "user")
        )

    def is_stop(self, message: Message) -> bool:
        """``UserSimulator.is_stop``: a text reply (not a tool call) holding one of the stop signals."""
        if message.tool_calls or message.content is None:
            return False
        return any(signal in message.content for signal in self.signals)

    def flipped(self) -> list[dict[str, object]]:
        """The history as the user's model sees it (``UserState.flip_roles`` then ``to_litellm_messages``)."""
        out: list[dict[str, object]] = []
        for m in self.messages:
            if m.role == "user":
                calls = [chat_call(c) for c in m.tool_calls] or None
                out.append({"role": "assistant", "content": m.content, "tool_calls": calls})
            elif m.role == "assistant" and not m.tool_calls:
                out.append({"role": "user", "content": m.content})
            elif m.role == "tool" and m.requestor == "user":
                out.append({"role": "tool", "content": m.content, "tool_call_id": m.tool_call_id})
            else:
                raise ValueError(f"the user's history cannot hold {m.role} message {m.to_dict()}")
        return out

    async def respond(self, incoming: list[Message]) -> Message:
        """The user's reply to the agent's text message or to the results of its own calls (``generate_next_message``).

        Raises ModelError (the user's model failed, or its reply's call arguments are not JSON)."""
        for m in incoming:
            if m.role == "tool" or has_text(m) or m.tool_calls:
                self.messages.append(m)
        request: list[dict[str, object]] = [{"role": "system", "content": self.system_prompt}, *self.flipped()]
        params = dict(self.llm_args)
        if self.tools:
            params.setdefault("tool_choice", "auto")
        response = await self.model.complete(request, tools=self.tools, **params)
        try:
            calls = [
                ToolUse(id=c.id, name=c.name, arguments=parse_arguments(c.arguments), requestor="user")
                for c in response.tool_calls
            ]
        except ValueError as exc:
            raise ModelError(f"the user model's tool call is not valid: {exc}") from None
        content = response.text if response.text or not calls else None
        reply = Message(role="user", content=content, tool_calls=calls, usage=response.usage)
        self.messages.append(reply)
        return reply
