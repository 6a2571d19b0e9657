"""Context management of the terminus2 loop, as Harbor 0.26.0's Terminus-2 does it.

- **Counting**: the chat history only (``token_counter`` over the messages already exchanged); the prompt about
  to be sent is not counted, so an observation always reaches the model before it can trigger a summary.
- **Proactive**: before each episode, when ``context limit - tokens(chat) < proactive_summarization_threshold``,
  summarize; the handoff replaces the pending prompt. A failure is logged and the episode goes on unchanged.
- **Reactive** (the model reported a context-length error): drop the latest user/assistant pairs until
  ``reactive_target_free`` tokens are free, summarize; failing that ask for a short summary from the last 1,000
  characters of the screen; failing that, hand off the instruction and the screen with no model call.
- **Summarizing** makes three calls: a summary (with the history), questions about it (with no history: task,
  summary, screen), answers (history + summary). The chat becomes [first message, questions prompt,
  questions]; the next prompt carries the answers. An empty chat hands off the bare instruction.

Every text is Harbor's, read from its source (:class:`HarborPrompts`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agentcompass.harnesses.terminus2.harbor_text import HarborPrompts

Message = dict[str, Any]
Ask = Callable[[str, list[Message]], Awaitable[str]]  # (prompt, history) -> reply text
SCREEN_TAIL_CHARS = 1000


def user(text: str) -> Message:
    return {"role": "user", "content": text}


def assistant(text: str) -> Message:
    return {"role": "assistant", "content": text}


@dataclass
class Handoff:
    """The outcome of a summarization: the prompt to send next, how it was made, the texts exchanged."""

    prompt: str
    mode: str  # full | empty | short | screen
    texts: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


class ContextManager:
    """Counts, unwinds and summarizes the chat of one attempt (``chat`` is modified in place)."""

    def __init__(
        self,
        prompts: HarborPrompts,
        *,
        limit: int,
        threshold: int,
        reactive_free: int,
        count_tokens: Callable[[list[Message]], int],
        ask: Ask,
        screen: Callable[[], Awaitable[str]],
        instruction: str,
    ) -> None:
        self.prompts, self.limit, self.threshold, self.reactive_free = prompts, limit, threshold, reactive_free
        self.count_tokens, self.ask, self.screen, self.instruction = count_tokens, ask, screen, instruction
        self.n_summaries = 0  # summaries begun (counted before their calls, as Harbor counts them)

    def free_tokens(self, chat: list[Message]) -> int:
        return self.limit - self.count_tokens(chat)

    def needs_summary(self, chat: list[Message]) -> bool:
        """The proactive trigger (the pending prompt is not counted)."""
        return self.free_tokens(chat) < self.threshold

    def unwind(self, chat: list[Message]) -> None:
        """Drop the latest pairs (keeping the first message while more than one is left) until enough is free."""
        while len(chat) > 1:
            if self.free_tokens(chat) >= self.reactive_free:
                break
            if len(chat) >= 2:
                del chat[-2:]
            else:
                break

    async def summarize(self, chat: list[Message]) -> Handoff:
        """Harbor's three-call summary; the chat becomes [first, questions prompt, questions]. Raises on any
        failed call (the caller decides what happens then)."""
        if not chat:
            return Handoff(self.instruction, "empty")
        self.n_summaries += 1
        p = self.prompts
        summary_prompt = p.text("summary", original_instruction=self.instruction)
        summary = await self.ask(summary_prompt, list(chat))
        current_screen = await self.screen()
        questions_prompt = p.text(
            "questions",
            original_instruction=self.instruction,
            current_screen=current_screen,
            **{"summary_response.content": summary},
        )
        questions = await self.ask(questions_prompt, [])
        answers_prompt = p.text("answers", model_questions=questions)
        answers = await self.ask(answers_prompt, chat + [user(summary_prompt), assistant(summary)])
        chat[:] = [chat[0], user(questions_prompt), assistant(questions)]
        handoff = p.text("handoff", **{"answers_response.content": answers})
        return Handoff(handoff, "full", {"summary": summary, "questions": questions, "answers": answers})

    async def reactive(self, chat: list[Message]) -> Handoff:
        """After a context-length error: unwind, then summarize, else the short summary, else the screen."""
        self.unwind(chat)
        errors: list[str] = []
        try:
            handoff = await self.summarize(chat)
            handoff.errors = errors
            return handoff
        except Exception as exc:
            errors.append(f"summary: {type(exc).__name__}: {exc}")
        p = self.prompts
        try:
            screen = (await self.screen())[-SCREEN_TAIL_CHARS:]
            short_prompt = p.text("short_summary", original_instruction=self.instruction, limited_screen=screen)
            short = await self.ask(short_prompt, [])
            text = p.text(
                "short_handoff", original_instruction=self.instruction, **{"short_llm_response.content": short}
            )
            return Handoff(text, "short", {"short_summary": short}, errors)
        except Exception as exc:
            errors.append(f"short summary: {type(exc).__name__}: {exc}")
        screen = (await self.screen())[-SCREEN_TAIL_CHARS:]
        text = p.text("screen_handoff", original_instruction=self.instruction, limited_screen=screen)
        return Handoff(text, "screen", {}, errors)
