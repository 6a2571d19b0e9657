"""DB and ENV_ASSERTION: the reference's ``EnvironmentEvaluator``. A predicted environment replays the whole
transcript from the task's initial state, a gold one replays the task's earlier messages and then the gold
actions; their agent and user DB hashes must be equal, and the env assertions run on the predicted one."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from agentcompass.benchmarks.tau2.criteria import DB, ENV_ASSERTION, Criteria, task_id
from agentcompass.benchmarks.tau2.reward import Component
from agentcompass.benchmarks.tau2.shapes import EnvAssertionCheck, HistoryMessage, Tau2Task
from agentcompass.conversation import Message, ToolUse
from agentcompass.errors import VerifierError

log = logging.getLogger(__name__)


class ReplayEnvironment(Protocol):
    """What grading needs of a domain environment (``agentcompass.benchmarks.tau2.domains``' ``Environment``,
    mirroring ``tau2.environment.environment.Environment``)."""

    tools: Any  # the agent's toolkit (``specs``: name -> spec, ``tool_type(name)``), or None
    user_tools: Any  # the user's toolkit, or None

    def set_state(
        self, initialization_data: Any, initialization_actions: Any, message_history: Any, strict: bool = True
    ) -> None: ...

    def make_tool_call(self, tool_name: str, requestor: str = "assistant", **kwargs: Any) -> Any: ...

    def run_env_assertion(self, assertion: Any, raise_assertion_error: bool = True) -> bool: ...

    def get_db_hash(self) -> str | None: ...

    def get_user_db_hash(self) -> str | None: ...


MakeEnv = Callable[[], ReplayEnvironment]


def history_message(raw: HistoryMessage) -> Message:
    """A message of a task's ``initial_state.message_history`` (the reference's JSON) as a transcript message."""
    calls = [
        ToolUse(
            id=str(c.get("id", "")),
            name=c["name"],
            arguments=dict(c.get("arguments") or {}),
            requestor=c.get("requestor", "assistant"),
        )
        for c in raw.get("tool_calls") or []
    ]
    if raw["role"] == "tool":
        return Message(
            role="tool",
            content=raw.get("content"),
            tool_call_id=raw.get("id"),
            requestor=raw.get("requestor", "assistant"),
            error=bool(raw.get("error", False)),
        )
    return Message(role=raw["role"], content=raw.get("content"), tool_calls=calls)


def _initial_state(task: Tau2Task) -> tuple[Any, Any, list[Message]]:
    state = task.get("initial_state") or {}
    history = [history_message(m) for m in state.get("message_history") or []]
    return state.get("initialization_data"), state.get("initialization_actions"), history


def tool_types(env: ReplayEnvironment) -> dict[str, str]:
    """Tool name -> type (read, write, think, generic) of the agent's then the user's tools, as
    ``evaluate_simulation`` gathers them from an environment of the domain."""
    types: dict[str, str] = {}
    for kit in (env.tools, env.user_tools):
        if kit is not None:
            types.update({name: str(kit.tool_type(name)) for name in kit.specs})
    return types


def _replayed(task: Tau2Task, messages: Sequence[Message], make_env: MakeEnv) -> ReplayEnvironment:
    data, actions, _ = _initial_state(task)
    env = make_env()
    try:
        env.set_state(data, actions, list(messages), strict=True)
    except Exception as exc:
        raise VerifierError(f"τ²-bench task {task_id(task)!r}: the transcript cannot be replayed: {exc}") from exc
    return env


def _gold(task: Tau2Task, criteria: Criteria, make_env: MakeEnv) -> ReplayEnvironment:
    data, actions, history = _initial_state(task)
    env = make_env()
    env.set_state(data, actions, history, strict=True)
    for action in criteria.actions or []:
        try:
            env.make_tool_call(action["name"], requestor=action["requestor"], **action["arguments"])
        except Exception as exc:  # the reference logs a failing gold action and goes on
            log.warning("Error in golden actions %s(%s): %s", action["name"], action["arguments"], exc)
    return env


def env_reward(
    task: Tau2Task,
    criteria: Criteria,
    messages: Sequence[Message],
    make_env: MakeEnv,
    gold_hashes: dict[str, tuple[Any, Any]] | None = None,
) -> tuple[Component, dict[str, str] | None]:
    """``EnvironmentEvaluator.calculate_reward``, and the domain's tool types (None when no environment was made:
    then there are no gold actions to type either). ``gold_hashes``: the gold DB hashes by task id, kept between
    calls (the gold actions on a fresh environment give the same DB every time)."""
    if criteria.actions is None and criteria.env_assertions is None:
        return Component(
            reward=1.0,
            db_check={"db_match": True, "db_reward": 1.0},
            info={"note": "No expected actions or env assertions"},
        ), None
    predicted = _replayed(task, messages, make_env)
    key = task_id(task)
    hashes = (gold_hashes or {}).get(key)
    if hashes is None:
        gold = _gold(task, criteria, make_env)
        hashes = (gold.get_db_hash(), gold.get_user_db_hash())
        if gold_hashes is not None:
            gold_hashes[key] = hashes
    db_match = hashes == (predicted.get_db_hash(), predicted.get_user_db_hash())
    db_reward = 1.0 if db_match else 0.0
    checks: list[EnvAssertionCheck] = []
    assertion_reward = 1.0
    for assertion in criteria.env_assertions or []:
        met = bool(predicted.run_env_assertion(assertion, raise_assertion_error=False))
        checks.append({"env_assertion": assertion, "met": met, "reward": 1.0 if met else 0.0})
        assertion_reward *= 1.0 if met else 0.0
    reward, breakdown = 1.0, {}
    if DB in criteria.reward_basis:
        breakdown[DB] = db_reward
        reward *= db_reward
    if ENV_ASSERTION in criteria.reward_basis:
        breakdown[ENV_ASSERTION] = assertion_reward
        reward *= assertion_reward
    component = Component(
        reward=reward,
        db_check={"db_match": db_match, "db_reward": db_reward},
        env_assertions=checks,
        reward_breakdown=breakdown,
    )
    return component, tool_types(predicted)
