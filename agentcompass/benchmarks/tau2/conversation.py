"""One τ²-bench conversation in text mode: the reference orchestrator's rules (``tau2.orchestrator.orchestrator.
Orchestrator``, half-duplex, ``solo_mode=False``, ``validate_communication=False``) with the agent outside.

The conversation routes each message as the orchestrator does: the agent's tool calls go to the domain environment
(``get_response``), its text to the user simulator; the user's tool calls (telecom) run against the user's side of
the environment and their results go back to the user; the user's text goes to the agent. Every routed message is
one step; after each step not addressed to the environment, ``max_steps`` and ``max_errors`` (failed tool calls,
counted across the agent and the user) end it, as ``_check_termination`` does. A user reply holding a stop signal
(``###STOP###``, ``###TRANSFER###``, ``###OUT-OF-SCOPE###``) ends it as ``user_stop``. The reference LLM agent never
stops a conversation itself (``LLMAgent.is_stop`` is False): a transfer is the ``transfer_to_human_agents`` tool,
whose result the user answers with its transfer signal. An empty message (neither text nor calls), which the
reference rejects with an exception, ends the conversation as ``agent_error`` / ``user_error``.

The domain environment is used as :mod:`.env_api` says.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcompass.conversation import Message, Termination, ToolUse, Transcript
from agentcompass.errors import AgentError, ModelRoleUnavailableError
from agentcompass.interfaces import ModelClient

from . import env_api, prompts
from .shapes import HistoryMessage, Tau2Task
from .user import UserSimulator, has_text

DEFAULT_MAX_STEPS = 200  # tau2.config.DEFAULT_MAX_STEPS
DEFAULT_MAX_ERRORS = 10  # tau2.config.DEFAULT_MAX_ERRORS
AGENT, USER, ENV = "agent", "user", "env"


def history_message(data: HistoryMessage) -> Message:
    """A message of a task's ``initial_state.message_history`` (tau2's message form)."""
    calls = [
        ToolUse(
            id=str(c.get("id", "")),
            name=c["name"],
            arguments=dict(c.get("arguments") or {}),
            requestor=str(c.get("requestor", "assistant")),
        )
        for c in data.get("tool_calls") or []
    ]
    role = str(data["role"])
    if role == "tool":
        return Message(
            role="tool",
            content=data.get("content"),
            tool_call_id=data.get("id"),
            requestor=str(data.get("requestor", "assistant")),
            error=bool(data.get("error", False)),
        )
    return Message(role=role, content=data.get("content"), tool_calls=calls)


def agent_accepts(message: Message) -> bool:
    """``is_valid_agent_history_message``: the agent's messages, the user's text, results of the agent's calls."""
    return (
        message.role == "assistant"
        or (message.role == "user" and not message.tool_calls)
        or (message.role == "tool" and message.requestor == "assistant")
    )


class Tau2Conversation:
    """The τ²-bench side of one attempt (an :class:`agentcompass.conversation.Conversation`).

    ``root``: the tau2-bench checkout (texts are read from it); ``domain_env``: the task's domain environment, fresh
    for this attempt; ``task``: the task as in the domain's tasks file (``user_scenario``, ``initial_state``,
    ``user_tools``...); ``user_model``: the ``user`` model role's client (None: no simulated user: the agent's
    messages to the user go unanswered; a message whose calls are all the user's runs them as the user's);
    ``max_steps`` / ``max_errors``: the orchestrator's limits (the reference runner's defaults); ``seed``: sent to
    the user's model (and offered to the agent as ``transcript.info["seed"]``) as the orchestrator's ``set_seed``
    does; None: no seed; ``user_llm_args``: the user's request parameters (default ``{"temperature": 0.0}``)."""

    def __init__(
        self,
        root: Path,
        domain_env: Any,
        task: Tau2Task,
        user_model: ModelClient | None,
        *,
        max_steps: int = DEFAULT_MAX_STEPS,
        max_errors: int = DEFAULT_MAX_ERRORS,
        seed: int | None = None,
        user_llm_args: dict[str, object] | None = None,
    ) -> None:
        self.root, self.env, self.task = Path(root), domain_env, task
        self.max_steps, self.max_errors, self.seed = max_steps, max_errors, seed
        self.tools = env_api.agent_tools(domain_env)
        self.system_prompt: str | None = prompts.agent_system_prompt(self.root, env_api.policy(domain_env))
        self.user: UserSimulator | None = None
        if user_model is not None:
            instructions = prompts.user_instructions(self.root, task.get("user_scenario") or {})
            tools = env_api.user_tools(domain_env, task.get("user_tools"))
            self.user = UserSimulator(
                self.root, instructions, user_model, tools=tools, llm_args=user_llm_args, seed=seed
            )
        self.transcript = Transcript(
            info={
                "seed": seed,
                "user_model": getattr(user_model, "model_id", None),
                "max_steps": max_steps,
                "max_errors": max_errors,
            }
        )
        self.done = False
        self.step_count = self.num_errors = 0
        self._from = self._to = ""
        self._pending: list[Message] = []

    # ------------------------------------------------------------------ the Conversation protocol
    async def start(self) -> list[Message]:
        """Set the environment's initial state, open the conversation (the task's message history, else the
        agent's default greeting) and run the other side until the agent's turn. Returns the agent's history."""
        initial = self.task.get("initial_state") or {}
        history = [history_message(m) for m in initial.get("message_history") or []]
        env_api.set_state(self.env, initial)
        if history:
            self._open_with(history)
        else:
            greeting = Message(role="assistant", content=prompts.first_agent_message(self.root))
            self._record([greeting])
            self._route(AGENT, USER, [greeting])
        opening = [m for m in self.transcript.messages if agent_accepts(m)]
        return opening + await self._pump()

    async def send(self, message: Message) -> list[Message]:
        """The agent's message: routed to the environment (calls) or the user (text); returns what reaches the
        agent next (tool results, or the user's reply, the last one even when it ends the conversation)."""
        if self.done:
            return []
        if self._to != AGENT:
            raise AgentError(f"not the agent's turn (the conversation is routing to {self._to})")
        if self.user is None and message.tool_calls and all(c.requestor == "user" for c in message.tool_calls):
            return await self._as_user(message)
        message.role = "assistant"
        self._record([message])
        if not message.tool_calls and not has_text(message):
            return self._error(Termination.AGENT_ERROR)
        self._route(AGENT, ENV if message.tool_calls else USER, [message])
        self._end_step()
        return await self._pump()

    def stop(self, reason: str) -> None:
        self.done = True
        self.transcript.termination = str(reason)

    # ------------------------------------------------------------------ the orchestrator's steps
    async def _pump(self) -> list[Message]:
        """Steps until the agent's turn (or the end); the messages that reach the agent."""
        delivered: list[Message] = []
        while not self.done and self._to != AGENT:
            if self._to == ENV:
                self._env_step()
            else:
                await self._user_step()
            if self._to == AGENT:
                delivered = list(self._pending)
        return delivered

    def _env_step(self) -> None:
        results = [self._execute(call) for call in self._pending[-1].tool_calls]
        self._record(results)
        self._route(ENV, self._from, results)
        self._end_step()

    async def _as_user(self, message: Message) -> list[Message]:
        """Without a simulated user: the user's own calls of a scripted solution (telecom's gold user actions), run
        on the user's side as the user's message; nothing of it reaches the agent."""
        said = Message(role="user", content=message.content, tool_calls=message.tool_calls, usage=message.usage)
        self._record([said])
        self._route(USER, ENV, [said])
        self._end_step()
        return await self._pump()

    async def _user_step(self) -> None:
        if self.user is None:  # no simulated user (no user model role): the turn passes back, unanswered
            self._route(USER, AGENT, [])
            return
        reply = await self._user().respond(self._pending)
        self._record([reply])
        if not reply.tool_calls and not has_text(reply):
            self._error(Termination.USER_ERROR)
            return
        if self._user().is_stop(reply):
            self.done = True
            self.transcript.termination = Termination.USER_STOP.value
        self._route(USER, ENV if reply.tool_calls else AGENT, [reply])
        self._end_step()

    def _execute(self, call: ToolUse) -> Message:
        content, error = env_api.response(self.env, call)
        if error:
            self.num_errors += 1
        return Message(
            role="tool",
            content=content,
            tool_call_id=call.id,
            requestor=call.requestor,
            error=error,
        )

    def _end_step(self) -> None:
        """``step_count += 1``, ``sync_tools()``, then ``_check_termination`` (not while routing to the env)."""
        self.step_count += 1
        env_api.sync_tools(self.env)
        if self._to == ENV:
            return
        if self.step_count >= self.max_steps:
            self.done = True
            self.transcript.termination = Termination.MAX_STEPS.value
        if self.num_errors >= self.max_errors:
            self.done = True
            self.transcript.termination = Termination.TOO_MANY_ERRORS.value

    # ------------------------------------------------------------------ helpers
    def _route(self, source: str, target: str, messages: list[Message]) -> None:
        self._from, self._to, self._pending = source, target, messages

    def _record(self, messages: list[Message]) -> None:
        for m in messages:
            self.transcript.append(m)

    def _error(self, reason: Termination) -> list[Message]:
        self.stop(reason.value)
        return []

    def _user(self) -> UserSimulator:
        if self.user is None:
            raise ModelRoleUnavailableError("τ²-bench needs a user simulator: configure the 'user' model role")
        return self.user

    def _open_with(self, history: list[Message]) -> None:
        """``Orchestrator.initialize`` with a message history: the last message says who speaks next."""
        last = history[-1]
        self._record(history)
        user_sees = [m for m in history if UserSimulator.accepts_history(m)]
        if last.role == "assistant":
            self._route(AGENT, ENV if last.tool_calls else USER, [last])
            user_sees = [m for m in history[:-1] if UserSimulator.accepts_history(m)]
        elif last.role == "user":
            self._route(USER, ENV if last.tool_calls else AGENT, [last])
            if self.user is not None and self.user.is_stop(last):
                self.stop(Termination.USER_STOP.value)
        elif last.role == "tool" and last.requestor == "assistant":
            self._route(ENV, AGENT, [last])
        else:
            self._route(ENV, USER, [last])
            user_sees = [m for m in history[:-1] if UserSimulator.accepts_history(m)]
        if self.user is not None:
            self.user.messages = user_sees
