"""Context management of the terminus2 loop (FORMATS.md D5): token estimate, unwinding, summarization.

Summarization makes three model calls: a summary of the work (with the full history), questions about it
(with a fresh context: task, summary, screen), and the answers (with the full history again). The chat
becomes [first prompt + questions prompt, questions] and the next prompt carries the answers. If that fails,
a short summary is asked from the last 1,000 screen characters; if that fails too, the next prompt is the
first prompt rebuilt from the instruction and the screen, with no model call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agentcompass.interfaces import ModelResponse, Usage

Message = dict[str, Any]
Ask = Callable[[list[Message]], Awaitable[ModelResponse]]
SCREEN_TAIL_CHARS = 1000


def estimate_tokens(messages: list[Message]) -> int:
    """A model-independent estimate: four characters per token, plus a few tokens per message."""
    chars = sum(len(str(m.get("content") or "")) for m in messages)
    return (chars + 3) // 4 + 4 * len(messages)


def user(text: str) -> Message:
    return {"role": "user", "content": text}


def assistant(text: str) -> Message:
    return {"role": "assistant", "content": text}


@dataclass
class Summary:
    """The outcome of one summarization: the new chat and next prompt, and what it took."""

    chat: list[Message]
    prompt: str
    mode: str                        # "full" | "short" | "fallback"
    usage: Usage = field(default_factory=Usage)
    texts: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


class ContextManager:
    """Decides when to summarize and does it; ``render(name, **values)`` renders a prompt template."""

    def __init__(self, *, limit: int, threshold: int, reactive_free: int, ask: Ask, render: Callable[..., str],
                 screen: Callable[[], Awaitable[str]], instruction: str, first_prompt_values: dict[str, Any]) -> None:
        self.limit, self.threshold, self.reactive_free = limit, threshold, reactive_free
        self.ask, self.render, self.screen = ask, render, screen
        self.instruction = instruction
        self.first_values = first_prompt_values

    def free_tokens(self, messages: list[Message]) -> int:
        return self.limit - estimate_tokens(messages)

    def needs_summary(self, chat: list[Message], prompt: str) -> bool:
        """Proactive check: too few free tokens left for the next query."""
        return self.free_tokens(chat + [user(prompt)]) < self.threshold

    def unwind(self, chat: list[Message]) -> list[Message]:
        """Drop the latest user/assistant pairs (never the first) until ``reactive_free`` tokens are free."""
        chat = list(chat)
        while len(chat) > 2 and self.free_tokens(chat) < self.reactive_free:
            chat = chat[:-2]
        return chat

    async def _call(self, messages: list[Message], result: Summary) -> str:
        response = await self.ask(messages)
        result.usage.add(response.usage)
        return response.text

    async def _screen_tail(self) -> str:
        try:
            return (await self.screen())[-SCREEN_TAIL_CHARS:]
        except Exception:                      # the session may be gone; the prompt still needs a screen
            return ""

    async def summarize(self, chat: list[Message], first_prompt: str) -> Summary:
        """Summarize ``chat`` (whose first message is ``first_prompt``), falling back as described above."""
        result = Summary(chat=[], prompt="", mode="full")
        if len(chat) >= 2:
            try:
                await self._full(chat, first_prompt, result)
                return result
            except Exception as exc:          # any failure of the three calls: fall back
                result.errors.append(f"summary: {type(exc).__name__}: {exc}")
        screen = await self._screen_tail()
        try:
            short = await self._call([user(self.render("short_summary.j2", instruction=self.instruction,
                                                       screen=screen))], result)
            result.texts["short_summary"] = short
            result.mode, result.prompt = "short", self._restart_prompt(screen, short)
        except Exception as exc:
            result.errors.append(f"short summary: {type(exc).__name__}: {exc}")
            result.mode, result.prompt = "fallback", self._restart_prompt(screen, None)
        result.chat = []
        return result

    async def _full(self, chat: list[Message], first_prompt: str, result: Summary) -> None:
        summary_prompt = self.render("summary.j2", instruction=self.instruction)
        summary = await self._call(chat + [user(summary_prompt)], result)
        screen = await self.screen()
        questions_prompt = self.render("questions.j2", instruction=self.instruction, summary=summary,
                                       screen=screen)
        questions = await self._call([user(questions_prompt)], result)
        answers_prompt = self.render("answers.j2", questions=questions)
        answers = await self._call(chat + [user(summary_prompt), assistant(summary), user(answers_prompt)],
                                   result)
        result.texts.update(summary=summary, questions=questions, answers=answers)
        result.chat = [user(first_prompt + "\n\n" + questions_prompt), assistant(questions)]
        result.prompt = self.render("handoff.j2", answers=answers)

    def _restart_prompt(self, screen: str, summary: str | None) -> str:
        return self.render("prompt.j2", **{**self.first_values, "screen": screen, "summary": summary})
