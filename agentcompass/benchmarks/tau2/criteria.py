"""A τ²-bench task's evaluation criteria, read from the task's JSON as the reference's pydantic models read it
(``tau2.data_model.tasks``: ``EvaluationCriteria``, ``Action``, ``EnvAssertion``), with their defaults filled in,
so that every check can be written as the reference's ``model_dump(mode="json")`` writes it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentcompass.errors import DatasetError

from .shapes import Action, EnvAssertion, RawAction, RawEnvAssertion, Tau2Task

# tau2.data_model.tasks.RewardType, in the order the reference declares it.
DB = "DB"
ENV_ASSERTION = "ENV_ASSERTION"
NL_ASSERTION = "NL_ASSERTION"
ACTION = "ACTION"
COMMUNICATE = "COMMUNICATE"
REWARD_TYPES = (DB, ENV_ASSERTION, NL_ASSERTION, ACTION, COMMUNICATE)
DEFAULT_REWARD_BASIS = (DB, COMMUNICATE)  # EvaluationCriteria.reward_basis's default
REQUESTORS = ("user", "assistant")


@dataclass(frozen=True)
class Criteria:
    """``EvaluationCriteria``: None where the task gives none (the reference tells None from ``[]``)."""

    actions: list[Action] | None
    env_assertions: list[EnvAssertion] | None
    communicate_info: list[str] | None
    nl_assertions: list[str] | None
    reward_basis: list[str]


def task_id(task: Tau2Task) -> str:
    return str(task.get("id", "?"))


def _bad(task: Tau2Task, key: str, value: Any, allowed: str) -> DatasetError:
    return DatasetError(f"τ²-bench task {task_id(task)!r}: {key} = {value!r}; expected {allowed}")


def normalize_action(task: Tau2Task, raw: RawAction) -> Action:
    """An ``Action`` with the reference's defaults (requestor ``assistant``, info and compare_args None)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not isinstance(raw.get("arguments"), dict):
        raise _bad(task, "evaluation_criteria.actions[]", raw, "an object with a name and an arguments object")
    requestor = raw.get("requestor", "assistant")
    if requestor not in REQUESTORS:
        raise _bad(task, "action requestor", requestor, "user or assistant")
    compare_args = raw.get("compare_args")
    return {
        "action_id": str(raw.get("action_id", "")),
        "requestor": requestor,
        "name": raw["name"],
        "arguments": raw["arguments"],
        "info": raw.get("info"),
        "compare_args": None if compare_args is None else [str(a) for a in compare_args],
    }


def normalize_env_assertion(task: Tau2Task, raw: RawEnvAssertion) -> EnvAssertion:
    """An ``EnvAssertion`` with the reference's defaults (assert_value True, message None)."""
    if not isinstance(raw, dict) or raw.get("env_type") not in REQUESTORS or not isinstance(raw.get("func_name"), str):
        raise _bad(task, "evaluation_criteria.env_assertions[]", raw, "an object with env_type and func_name")
    return {
        "env_type": raw["env_type"],
        "func_name": raw["func_name"],
        "arguments": dict(raw.get("arguments") or {}),
        "assert_value": bool(raw.get("assert_value", True)),
        "message": raw.get("message"),
    }


def _strings(task: Tau2Task, key: str, value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(task, f"evaluation_criteria.{key}", value, "a list of strings")
    return list(value)


def read_criteria(task: Tau2Task) -> Criteria | None:
    """The task's evaluation criteria; None when it has none (the reference then scores 1.0)."""
    raw = task.get("evaluation_criteria")
    if raw is None:
        return None
    basis = raw.get("reward_basis")
    basis = list(DEFAULT_REWARD_BASIS) if basis is None else basis
    for value in basis:
        if value not in REWARD_TYPES:
            raise _bad(task, "evaluation_criteria.reward_basis", value, "one of " + ", ".join(REWARD_TYPES))
    actions = raw.get("actions")
    assertions = raw.get("env_assertions")
    return Criteria(
        actions=None if actions is None else [normalize_action(task, a) for a in actions],
        env_assertions=None if assertions is None else [normalize_env_assertion(task, a) for a in assertions],
        communicate_info=_strings(task, "communicate_info", raw.get("communicate_info")),
        nl_assertions=_strings(task, "nl_assertions", raw.get("nl_assertions")),
        reward_basis=list(basis),
    )
