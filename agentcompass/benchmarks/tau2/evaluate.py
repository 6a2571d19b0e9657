"""Grading a τ²-bench transcript exactly as the reference's ``evaluate_simulation`` grades a half-duplex
simulation with ``EvaluationType.ALL`` (the runner's default): a conversation that did not end with a stop scores
0.0; a task without evaluation criteria scores 1.0; otherwise the environment (DB hashes, env assertions), action,
communicate and — when the basis has NL_ASSERTION — NL-assertion evaluators run, and the reward is the product of
the components of the task's ``reward_basis``.

Termination map (:class:`agentcompass.conversation.Termination` -> the reference's ``TerminationReason``):
``agent_stop``, ``user_stop``, ``max_steps``, ``too_many_errors``, ``agent_error``, ``user_error`` -> the same value;
``harness_limit`` (the harness's own step/cost/time limit) -> ``max_steps``; no termination (the conversation never
ended, e.g. the harness crashed) -> ``agent_error``. A transcript may also carry a reference value directly
(``timeout``, ``infrastructure_error``, ``context_window_exceeded``, ``unexpected_error``). Every value but the two
stops scores 0.0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcompass.benchmarks.tau2.criteria import (
    ACTION,
    COMMUNICATE,
    DB,
    ENV_ASSERTION,
    NL_ASSERTION,
    read_criteria,
    task_id,
)
from agentcompass.benchmarks.tau2.evaluate_action import action_reward
from agentcompass.benchmarks.tau2.evaluate_communicate import communicate_reward
from agentcompass.benchmarks.tau2.evaluate_env import MakeEnv, env_reward
from agentcompass.benchmarks.tau2.evaluate_nl import Judge, JudgeMissingError, nl_reward
from agentcompass.benchmarks.tau2.reward import Component, RewardResult
from agentcompass.benchmarks.tau2.shapes import Tau2Task
from agentcompass.conversation import Transcript
from agentcompass.errors import VerifierError

TERMINATION_REASONS = {
    "agent_stop": "agent_stop",
    "user_stop": "user_stop",
    "max_steps": "max_steps",
    "too_many_errors": "too_many_errors",
    "agent_error": "agent_error",
    "user_error": "user_error",
    "harness_limit": "max_steps",
    "timeout": "timeout",
    "infrastructure_error": "infrastructure_error",
    "context_window_exceeded": "context_window_exceeded",
    "unexpected_error": "unexpected_error",
}
STOPS = ("agent_stop", "user_stop")


def termination_reason(termination: str | None) -> str:
    """The reference's ``TerminationReason`` value of a transcript's termination (see the module's map)."""
    if termination is None:
        return "agent_error"
    try:
        return TERMINATION_REASONS[termination]
    except KeyError:
        raise VerifierError(f"unknown termination {termination!r}; known: {', '.join(TERMINATION_REASONS)}") from None


def _combine(
    basis: list[str], env: Component, action: Component, comm: Component, nl: Component | None
) -> RewardResult:
    """``evaluate_simulation``'s combination for ``EvaluationType.ALL``: the product over the basis, in the
    reference's order (env, action, NL, communicate), and the breakdowns of the components it multiplies."""
    reward, breakdown = 1.0, {}
    for bases, part in (((DB, ENV_ASSERTION), env), ((ACTION,), action), ((NL_ASSERTION,), nl), ((COMMUNICATE,), comm)):
        if part is None or not set(basis) & set(bases):
            continue
        breakdown.update(part.reward_breakdown or {})
        reward *= part.reward
    return RewardResult(
        reward=reward,
        db_check=env.db_check,
        env_assertions=env.env_assertions,
        action_checks=action.action_checks,
        nl_assertions=nl.nl_assertions if nl is not None else None,
        communicate_checks=comm.communicate_checks,
        reward_basis=list(basis),
        reward_breakdown=breakdown,
        info={
            "env": env.info,
            "nl": nl.info if nl is not None else None,
            "communicate": comm.info,
            "action": action.info,
        },
    )


async def evaluate(
    task: Tau2Task,
    transcript: Transcript,
    make_env: MakeEnv,
    judge: Judge | None = None,
    *,
    root: Path | None = None,
    gold_hashes: dict[str, tuple[Any, Any]] | None = None,
) -> RewardResult:
    """Grade ``transcript`` (the whole conversation, the task's earlier messages included) for ``task`` (its JSON
    object from the domain's tasks file). ``make_env()``: a fresh environment of the task's domain.
    ``judge``: the NL-assertion judge (see :data:`Judge`), needed when the basis has NL_ASSERTION and the task has
    assertions; ``root``: the tau2-bench checkout its prompt is read from; ``gold_hashes``: a cache of the gold DB
    hashes by task id, kept by the caller between calls. Raises JudgeMissingError without one,
    VerifierError when the transcript's tool calls cannot be replayed, JudgeReplyError on an unreadable reply."""
    reason = termination_reason(transcript.termination)
    if reason not in STOPS:
        note = f"Simulation terminated prematurely. Termination reason: {reason}"
        return RewardResult(reward=0.0, reward_basis=None, info={"note": note}, termination_reason=reason)
    criteria = read_criteria(task)
    if criteria is None:
        return RewardResult(
            reward=1.0, reward_basis=None, info={"note": "No evaluation criteria"}, termination_reason=reason
        )
    needs_nl = NL_ASSERTION in criteria.reward_basis
    if needs_nl and criteria.nl_assertions and (judge is None or root is None):
        raise JudgeMissingError(task_id(task))
    messages = transcript.messages
    env, types = env_reward(task, criteria, messages, make_env, gold_hashes)
    action = action_reward(criteria, messages, types)
    comm = communicate_reward(criteria, messages)
    nl = await nl_reward(task_id(task), criteria, messages, judge, root) if needs_nl else None
    result = _combine(criteria.reward_basis, env, action, comm, nl)
    result.termination_reason = reason
    return result
