"""One AgentDojo conversation: the package's own run of a case (``TaskSuite.run_task_with_pipeline``, the pipeline
``AgentPipeline.from_config`` builds) with the agent in place of the pipeline's LLM element.

The package's run is synchronous; it runs in a worker thread. Each time the pipeline calls its LLM, the messages
it added since the agent's last reply (the user's prompt, tool results, a repeated prompt) go to the agent, and the
thread waits for the agent's next message (:meth:`AgentDojoConversation.send`). The pipeline ends when the agent's
message has no tool calls, or after the package's ``ToolsExecutionLoop`` limit (15 rounds); then the conversation is
done and the package's own (utility, security) of the live run is kept in ``transcript.info["package_result"]``.
A stopped conversation answers every further LLM call of the pipeline with an empty text. When the package reruns
its pipeline (the agent's last message had no text: ``run_task_with_pipeline`` tries up to 3 times) the agent is
handed the new run's opening (``transcript.info["reruns"]`` counts them)."""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import Any

from agentcompass.conversation import Message, Termination, Transcript

from . import _package
from .elements import AgentElement, empty_answer, from_package, to_package
from .run import CaseRun

_STOP = object()


class AgentDojoConversation:
    """The AgentDojo side of one attempt (an :class:`agentcompass.conversation.Conversation`). ``reply_timeout_s``:
    how long the package's run waits for the agent's next message before it counts the conversation as stopped."""

    def __init__(self, case: CaseRun, *, reply_timeout_s: float = 3600.0) -> None:
        self.case = case
        self.reply_timeout_s = reply_timeout_s
        self._element = AgentElement(case.name, self._answer)
        self.tools = _package.tool_schemas(case.suite)
        self.system_prompt: str | None = case.pipeline(self._element).elements[0].system_message
        self.transcript = Transcript(
            info={
                "suite": case.suite.name,
                "user_task": case.user_task.ID,
                "injection_task": case.injection_task.ID if case.injection_task is not None else None,
                "injections": dict(case.injections),
                "defense": case.defense,
                "reruns": 0,
            }
        )
        self.done = False
        self._inbox: queue.Queue[Any] = queue.Queue()
        self._events: asyncio.Queue[tuple[str, Any]] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped = False  # the thread's view: the agent says nothing more
        self._seen = 0  # the package's messages already accounted for

    # ------------------------------------------------------------------ the Conversation protocol
    async def start(self) -> list[Message]:
        self._loop = asyncio.get_running_loop()
        self._events = asyncio.Queue()
        threading.Thread(target=self._run, daemon=True, name="agentdojo-case").start()
        return await self._next()

    async def send(self, message: Message) -> list[Message]:
        if self.done:
            return []
        message.role = "assistant"
        self.transcript.append(message)
        self._inbox.put(to_package(message))
        return await self._next()

    def stop(self, reason: str) -> None:
        if not self.done:
            self.done = True
            self.transcript.termination = str(reason)
        self._inbox.put(_STOP)

    # ------------------------------------------------------------------ the package's side (worker thread)
    def _run(self) -> None:
        try:
            utility, security = self.case.execute(self._element)
        except Exception as exc:  # the package's run failed: reported on the event loop
            self._finish("error", f"{type(exc).__name__}: {exc}")
            return
        self._finish("end", {"utility": bool(utility), "security": bool(security)})

    def _finish(self, kind: str, value: Any) -> None:
        """Record the run's end in the transcript (on the event loop, also after a stop), and report it."""
        key = "package_result" if kind == "end" else "package_error"
        if self._loop is not None:
            try:
                self._loop.call_soon_threadsafe(self.transcript.info.__setitem__, key, value)
            except RuntimeError:  # the event loop is gone (the attempt ended first)
                pass
        self._post(kind, value)

    def _answer(self, messages: list[Any]) -> Any:
        if not self._stopped:
            self._post("turn", messages)
            try:
                reply = self._inbox.get(timeout=self.reply_timeout_s)
            except queue.Empty:
                reply = _STOP
            if reply is not _STOP:
                return reply
            self._stopped = True
        return empty_answer()

    def _post(self, kind: str, value: Any) -> None:
        loop, events = self._loop, self._events
        if loop is None or events is None:
            return
        try:
            loop.call_soon_threadsafe(events.put_nowait, (kind, value))
        except RuntimeError:  # the event loop is gone (the attempt ended first)
            pass

    # ------------------------------------------------------------------ the agent's side (event loop)
    async def _next(self) -> list[Message]:
        assert self._events is not None
        kind, value = await self._events.get()
        if kind == "turn":
            return self._deliver(value)
        if not self.done:
            self.done = True
            self.transcript.termination = (Termination.AGENT_STOP if kind == "end" else Termination.AGENT_ERROR).value
        return []

    def _deliver(self, messages: list[Any]) -> list[Message]:
        if len(messages) < self._seen:  # the package reruns its pipeline from the start
            self._seen = 0
            self.transcript.info["reruns"] += 1
        new = [m for m in messages[self._seen :] if m["role"] != "system"]
        self._seen = len(messages) + 1  # and the agent's reply, appended by the pipeline
        return [self.transcript.append(from_package(m)) for m in new]
