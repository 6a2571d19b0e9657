"""NL_ASSERTION: the reference's ``NLAssertionsEvaluator``: the transcript and the assertions go to an LLM judge in
the reference's two messages (its system prompt and user prompt, read at run time from the reference's source
file ``src/tau2/evaluator/evaluator_nl_assertions.py``), and its JSON reply is read as the reference reads it."""

from __future__ import annotations

import ast
import functools
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcompass.benchmarks.tau2.criteria import NL_ASSERTION, Criteria
from agentcompass.benchmarks.tau2.reward import Component
from agentcompass.benchmarks.tau2.shapes import NLAssertionCheck
from agentcompass.conversation import Message
from agentcompass.errors import DatasetError, VerifierError

SOURCE = Path("src") / "tau2" / "evaluator" / "evaluator_nl_assertions.py"
CLASS, FUNCTION = "NLAssertionsEvaluator", "evaluate_nl_assertions"

Judge = Callable[[list[dict[str, str]]], Awaitable[str]]
"""``async judge(messages) -> text``: the model's reply to chat messages ``[{role, content}, ...]``."""


class JudgeMissingError(VerifierError):
    """A task is graded on NL_ASSERTION (its basis has it and it has assertions) but no judge (or no tau2-bench root
    to read the judge's prompt from) was given."""

    def __init__(self, task_id: str) -> None:
        self.task_id = task_id
        super().__init__(
            f"τ²-bench task {task_id!r} is graded on NL_ASSERTION: evaluate() needs a judge and the tau2-bench root"
        )


class JudgeReplyError(VerifierError):
    """The NL-assertions judge replied with something the reference's evaluator cannot read (not JSON, or a result
    without its fields)."""

    retryable = True


@dataclass(frozen=True)
class NLPrompt:
    """The reference's system prompt, and its user prompt as an f-string's parts (text, or a variable's name)."""

    system: str
    user_parts: tuple[tuple[str, str], ...]  # ("text", s) | ("name", variable)

    def user(self, variables: dict[str, object]) -> str:
        return "".join(v if kind == "text" else format(variables[v]) for kind, v in self.user_parts)


def _fstring_parts(node: ast.expr, source: Path) -> tuple[tuple[str, str], ...]:
    if not isinstance(node, ast.JoinedStr):
        raise DatasetError(f"{source}: user_prompt is not an f-string")
    parts: list[tuple[str, str]] = []
    for value in node.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            parts.append(("text", value.value))
        elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name):
            if value.conversion != -1 or value.format_spec is not None:
                raise DatasetError(f"{source}: user_prompt formats {value.value.id} in a way not read here")
            parts.append(("name", value.value.id))
        else:
            raise DatasetError(f"{source}: user_prompt holds an expression not read here")
    return tuple(parts)


@functools.cache
def load_nl_prompt(root: Path) -> NLPrompt:
    """The prompts of ``NLAssertionsEvaluator.evaluate_nl_assertions`` in the tau2-bench checkout ``root``."""
    source = root / SOURCE
    try:
        tree = ast.parse(source.read_text(encoding="utf-8"))
    except (OSError, SyntaxError) as exc:
        raise DatasetError(f"cannot read the τ²-bench NL-assertions prompt from {source}: {exc}") from exc
    found: dict[str, ast.expr] = {}
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == CLASS):
        for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == FUNCTION):
            for stmt in ast.walk(fn):
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                    found.setdefault(stmt.targets[0].id, stmt.value)
    system = found.get("system_prompt")
    if not isinstance(system, ast.Constant) or not isinstance(system.value, str) or "user_prompt" not in found:
        raise DatasetError(f"{source}: no system_prompt / user_prompt in {CLASS}.{FUNCTION}")
    return NLPrompt(system=system.value, user_parts=_fstring_parts(found["user_prompt"], source))


def judge_messages(prompt: NLPrompt, messages: Sequence[Message], nl_assertions: list[str]) -> list[dict[str, str]]:
    """The two chat messages the reference sends its judge for these assertions."""
    trajectory_str = "\n".join(f"{m.role}: {m.content}" for m in messages)
    user = prompt.user({"trajectory_str": trajectory_str, "nl_assertions": nl_assertions})
    return [{"role": "system", "content": prompt.system}, {"role": "user", "content": user}]


_TRUE = {"1", "on", "t", "true", "y", "yes"}
_FALSE = {"0", "off", "f", "false", "n", "no"}


def _as_bool(value: Any) -> bool:
    """A pydantic (lax mode) ``bool``, as ``NLAssertionCheck.met`` takes it."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
        return value.lower() in _TRUE
    raise ValueError(f"not a boolean: {value!r}")


def parse_judge_reply(text: str) -> list[NLAssertionCheck]:
    """The ``NLAssertionCheck``s of a reply: ``results[]`` of ``{expectedOutcome, metExpectation, reasoning}``."""
    try:
        data = json.loads(text)
        checks: list[NLAssertionCheck] = []
        for result in data.get("results", []):
            nl_assertion, justification = result["expectedOutcome"], result["reasoning"]
            if not isinstance(nl_assertion, str) or not isinstance(justification, str):
                raise ValueError("expectedOutcome and reasoning must be strings")
            checks.append(
                {
                    "nl_assertion": nl_assertion,
                    "met": _as_bool(result["metExpectation"]),
                    "justification": justification,
                }
            )
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise JudgeReplyError(f"the NL-assertions judge's reply cannot be read ({exc}): {text[:200]!r}") from exc
    return checks


async def nl_reward(
    task_id: str, criteria: Criteria, messages: Sequence[Message], judge: Judge | None, root: Path | None
) -> Component:
    """``NLAssertionsEvaluator.calculate_reward``: 1.0 when every check the judge returns is met."""
    if not criteria.nl_assertions:
        return Component(
            reward=1.0,
            nl_assertions=[],
            info={"note": "No nl_assertions to evaluate"},
            reward_breakdown={NL_ASSERTION: 1.0},
        )
    if judge is None or root is None:
        raise JudgeMissingError(task_id)
    request = judge_messages(load_nl_prompt(root), messages, criteria.nl_assertions)
    checks = parse_judge_reply(await judge(request))
    reward = 1.0 if all(c["met"] for c in checks) else 0.0
    return Component(reward=reward, nl_assertions=checks, reward_breakdown={NL_ASSERTION: reward})
