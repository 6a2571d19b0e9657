"""Model calls of the terminus2 loop: Harbor's ``Chat.chat`` and ``_query_llm`` with its recovery paths.

- ``chat(prompt)``: one call with the history plus ``prompt``; on success both are appended to the history.
- ``query(prompt)``: up to ``attempts`` tries (any error but a context-length one is tried again at once, as
  Harbor's ``@retry(stop_after_attempt(3))``; an error that stops the request, such as a model endpoint declared
  down, is not: the request is over), around:
  - a reply cut by the output limit (``finish_reason == "length"``): nothing is run; the prompt and the cut
    reply go into the history and the model is asked, with Harbor's message, to re-issue it in smaller chunks
    (the parser's warnings about the cut reply appended);
  - a context-length error: with ``enable_summarize`` the reactive summary (see ``context``), then the handoff
    is sent; if even that call fails the reply is Harbor's fixed "technical difficulties" text. Without it the
    error propagates.

Transport retries (429, 5xx, dropped connections) stay with the model layer (``max_retries``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from agentcompass.errors import ContextLengthExceededError
from agentcompass.harnesses.terminus2.context import ContextManager, Handoff, Message, assistant, user
from agentcompass.harnesses.terminus2.harbor_parser import ReplyParser
from agentcompass.harnesses.terminus2.harbor_text import HarborPrompts
from agentcompass.interfaces import ModelClient, ModelResponse, Usage


class OutputLengthExceeded(Exception):
    """The model stopped at its output limit; ``text`` is what it wrote."""

    def __init__(self, text: str) -> None:
        super().__init__("the reply was cut by the output length limit")
        self.text = text


class Conversation:
    """The chat history of one attempt and every call made with it."""

    def __init__(
        self,
        model: ModelClient,
        prompts: HarborPrompts,
        parser: ReplyParser,
        *,
        attempts: int,
        enable_summarize: bool,
        output_limit: int | None,
        logger: logging.Logger,
        on_handoff: Callable[[str, Handoff], None],
    ) -> None:
        self.model, self.prompts, self.parser = model, prompts, parser
        self.attempts, self.enable_summarize, self.output_limit = attempts, enable_summarize, output_limit
        self.log, self.on_handoff = logger, on_handoff
        self.messages: list[Message] = []
        self.usage = Usage()
        self.context: ContextManager | None = None  # set by the run once the session exists

    # ------------------------------------------------------------------ single calls
    async def complete(self, messages: list[Message]) -> ModelResponse:
        response = await self.model.complete(messages)
        self.usage.add(response.usage)
        if not response.usage.n_calls:
            self.usage.n_calls += 1
        return response

    async def ask(self, prompt: str, history: list[Message]) -> str:
        """A call outside the chat (summarization); a cut reply is an error, as in Harbor's LLM layer."""
        response = await self.complete(history + [user(prompt)])
        if response.finish_reason == "length":
            raise OutputLengthExceeded(response.text)
        return response.text

    async def chat(self, prompt: str) -> str:
        response = await self.complete(self.messages + [user(prompt)])
        if response.finish_reason == "length":
            raise OutputLengthExceeded(response.text)
        self.messages += [user(prompt), assistant(response.text)]
        return response.text

    # ------------------------------------------------------------------ the query of one episode
    async def query(self, prompt: str) -> str:
        for attempt in range(1, self.attempts + 1):
            try:
                return await self._query_once(prompt)
            except ContextLengthExceededError:
                raise
            except Exception as exc:
                if attempt == self.attempts or getattr(exc, "stops_request", False):
                    raise  # an error that stops the request (a dead endpoint) is not tried again
                self.log.warning(
                    "terminus2: model query failed (%s: %s), try %d of %d",
                    type(exc).__name__,
                    exc,
                    attempt + 1,
                    self.attempts,
                )
        raise AssertionError("unreachable")

    async def _query_once(self, prompt: str) -> str:
        try:
            return await self.chat(prompt)
        except ContextLengthExceededError:
            if not self.enable_summarize or self.context is None:
                raise
            self.log.info("terminus2: context length exceeded; summarizing")
            handoff = await self.context.reactive(self.messages)
            self.on_handoff("reactive", handoff)
            try:
                return await self.chat(handoff.prompt)
            except Exception as exc:
                self.log.error("terminus2: the call after the summary failed too: %s", exc)
                return self.prompts.text("fallback_reply")
        except OutputLengthExceeded as cut:
            return await self.query(self._output_length_prompt(prompt, cut.text))

    def _output_length_prompt(self, prompt: str, truncated: str) -> str:
        warnings = ""
        try:
            warning = self.parser.warning_of(truncated)
            if warning:
                warnings = self.prompts.text("truncated_warnings", **{"parse_result.warning": warning})
        except Exception as exc:
            self.log.debug("terminus2: cannot parse the cut reply: %s", exc)
        p = self.prompts
        limit = (
            p.text("limit_tokens", output_limit=self.output_limit)
            if self.output_limit is not None
            else p.text("limit_unknown")
        )
        self.messages += [user(prompt), assistant(truncated)]
        return p.text("output_length", limit_str=limit) + warnings
