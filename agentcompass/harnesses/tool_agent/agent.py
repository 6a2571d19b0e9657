"""The ``tool_agent`` loop: τ²-bench's ``LLMAgent`` on any model protocol, driving ``ctx.conversation``.

Its history is the conversation's opening (:meth:`Conversation.start`) followed by each of its own messages and what
:meth:`Conversation.send` answers, in order (``LLMAgentState.messages``); every request is the conversation's system
prompt (none when it gives none) and that history in the OpenAI chat form (``to_litellm_messages``: a call's
arguments re-serialized with ``json.dumps``), with the conversation's tools and the configured parameters.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from agentcompass.conversation import Conversation, Message, Termination, ToolUse
from agentcompass.errors import ConfigError
from agentcompass.interfaces import (
    AgentResult,
    AttemptContext,
    ComponentContext,
    Environment,
    ExitStatus,
    ModelClient,
    ModelResponse,
    Task,
    Usage,
)

from .config import ToolAgentConfig


def chat_message(message: Message) -> dict[str, Any]:
    """A transcript message in the OpenAI chat form, as the reference agent sends its history."""
    if message.role == "tool":
        return {"role": "tool", "content": message.content, "tool_call_id": message.tool_call_id}
    if message.role == "assistant":
        calls = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
            for c in message.tool_calls
        ]
        return {"role": "assistant", "content": message.content, "tool_calls": calls or None}
    return {"role": message.role, "content": message.content}


class InvalidReply(Exception):
    """The model's reply cannot be a message (a call whose arguments are not a JSON object)."""


def reply_message(response: ModelResponse) -> Message:
    """The model's reply as the agent's message (``generate``: arguments parsed with ``json.loads``)."""
    calls = []
    for call in response.tool_calls:
        try:
            arguments = json.loads(call.arguments or "{}")
        except ValueError as exc:
            raise InvalidReply(f"tool call {call.name!r}: arguments are not JSON: {exc}") from None
        if not isinstance(arguments, dict):
            raise InvalidReply(f"tool call {call.name!r}: arguments are not a JSON object: {call.arguments!r}")
        calls.append(ToolUse(id=call.id, name=call.name, arguments=arguments))
    content = response.text if response.text or not calls else None
    return Message(role="assistant", content=content, tool_calls=calls, usage=response.usage)


class ToolAgentHarness:
    """A native tool-calling agent: τ²-bench's reference LLM agent, for any benchmark that converses."""

    id = "tool_agent"
    requires_model: ClassVar[bool] = True
    converses: ClassVar[bool] = True
    config_class = ToolAgentConfig

    def __init__(self, config: ToolAgentConfig, ctx: ComponentContext | None = None) -> None:
        if ctx is not None and ctx.model_id == "none":
            raise ConfigError("harness 'tool_agent' needs a model; got model 'none'")
        self.config = config

    def request_params(self, conversation: Conversation) -> dict[str, Any]:
        """The parameters of every call: ``params``, the conversation's seed, ``tool_choice`` when there are tools."""
        params = dict(self.config.params)
        seed = conversation.transcript.info.get("seed")
        if self.config.conversation_seed and seed is not None and "seed" not in params:
            params["seed"] = seed
        if conversation.tools and self.config.tool_choice is not None:
            params.setdefault("tool_choice", self.config.tool_choice)
        return params

    async def run(self, task: Task, env: Environment, model: ModelClient | None, ctx: AttemptContext) -> AgentResult:
        if model is None:
            raise ConfigError("harness 'tool_agent' needs a model; got model=none")
        conversation = ctx.conversation
        if conversation is None:
            raise ConfigError(
                f"harness 'tool_agent' drives a tool-use conversation; the benchmark of task {task.id!r} declares "
                "none (capability 'conversation')"
            )
        return await self._loop(conversation, model)

    async def _loop(self, conversation: Conversation, model: ModelClient) -> AgentResult:
        system = (
            [] if conversation.system_prompt is None else [{"role": "system", "content": conversation.system_prompt}]
        )
        history = list(await conversation.start())
        usage, steps, limit_hit, format_errors = Usage(), 0, None, 0
        while not conversation.done:
            if self.config.max_steps is not None and steps >= self.config.max_steps:
                conversation.stop(Termination.HARNESS_LIMIT.value)
                limit_hit = "step_limit"
                break
            # read before every call: a conversation's tools may grow (BFCL's held-out functions)
            params, tools = self.request_params(conversation), conversation.tools or None
            response = await model.complete([*system, *(chat_message(m) for m in history)], tools=tools, **params)
            steps += 1
            usage.add(response.usage)
            try:
                message = reply_message(response)
            except InvalidReply:
                format_errors += 1
                conversation.stop(Termination.AGENT_ERROR.value)
                break
            history.append(message)
            history.extend(await conversation.send(message))
        status = ExitStatus.LIMITS_EXCEEDED if limit_hit else ExitStatus.COMPLETED
        return AgentResult(
            exit_status=status,
            n_turns=steps,
            usage=usage,
            limit_hit=limit_hit,
            n_format_errors=format_errors,
            transcript=conversation.transcript,
            info={"termination": conversation.transcript.termination},
        )
