"""The shapes of τ²-bench's data as this package reads and writes it: a task of a domain's ``tasks.json`` (the
reference's ``tau2.data_model.tasks`` models, as JSON), the checks of its evaluators and the ``RewardInfo`` they
add up to (``tau2.data_model.simulation``, as ``model_dump(mode="json")`` writes them)."""

from __future__ import annotations

from typing import TypedDict


class HistoryToolCall(TypedDict, total=False):
    """A ``ToolCall`` of a task's message history (``tau2.data_model.message.ToolCall``, as JSON)."""

    id: str
    name: str
    arguments: dict[str, object]
    requestor: str


class HistoryMessage(TypedDict, total=False):
    """A message of ``initial_state.message_history`` (``tau2.data_model.message``'s messages, as JSON)."""

    role: str
    content: str | None
    tool_calls: list[HistoryToolCall] | None
    id: str
    requestor: str
    error: bool


class InitialState(TypedDict, total=False):
    """A task's ``initial_state`` (``tau2.data_model.tasks.InitialState``, as JSON)."""

    initialization_data: dict[str, object] | None
    initialization_actions: list[dict[str, object]] | None
    message_history: list[HistoryMessage] | None


class RawAction(TypedDict, total=False):
    """An ``Action`` of ``evaluation_criteria.actions`` as the task's JSON gives it (defaults left out)."""

    action_id: str
    requestor: str
    name: str
    arguments: dict[str, object]
    info: str | None
    compare_args: list[str] | None


class RawEnvAssertion(TypedDict, total=False):
    """An ``EnvAssertion`` of ``evaluation_criteria.env_assertions`` as the task's JSON gives it."""

    env_type: str
    func_name: str
    arguments: dict[str, object] | None
    assert_value: bool
    message: str | None


class RawCriteria(TypedDict, total=False):
    """A task's ``evaluation_criteria`` (``tau2.data_model.tasks.EvaluationCriteria``, as JSON)."""

    actions: list[RawAction] | None
    env_assertions: list[RawEnvAssertion] | None
    communicate_info: list[str] | None
    nl_assertions: list[str] | None
    reward_basis: list[str] | None


class StructuredInstructions(TypedDict, total=False):
    """``tau2.data_model.tasks.StructuredUserInstructions``, as JSON."""

    domain: str
    reason_for_call: str
    known_info: str | None
    unknown_info: str | None
    task_instructions: str


class UserScenario(TypedDict, total=False):
    """A task's ``user_scenario`` (``tau2.data_model.tasks.UserScenario``: instructions are a string or a
    ``StructuredUserInstructions`` object, read by the reference's own ``__str__``)."""

    persona: str | None
    instructions: str | StructuredInstructions


class Tau2Task(TypedDict, total=False):
    """A task of a domain's tasks file (``tau2.data_model.tasks.Task``, as JSON)."""

    id: str
    description: object
    user_scenario: UserScenario
    ticket: str | None
    initial_state: InitialState | None
    evaluation_criteria: RawCriteria | None
    user_tools: list[str] | None


class Action(TypedDict):
    """An ``Action`` with the reference's defaults filled in, as ``model_dump(mode="json")`` writes it."""

    action_id: str
    requestor: str
    name: str
    arguments: dict[str, object]
    info: str | None
    compare_args: list[str] | None


class EnvAssertion(TypedDict):
    """An ``EnvAssertion`` with the reference's defaults filled in, as ``model_dump(mode="json")`` writes it."""

    env_type: str
    func_name: str
    arguments: dict[str, object]
    assert_value: bool
    message: str | None


class DBCheck(TypedDict):
    """``tau2.data_model.simulation.DBCheck``."""

    db_match: bool
    db_reward: float


class EnvAssertionCheck(TypedDict):
    """``tau2.data_model.simulation.EnvAssertionCheck``."""

    env_assertion: EnvAssertion
    met: bool
    reward: float


class ActionCheck(TypedDict):
    """``tau2.data_model.simulation.ActionCheck``."""

    action: Action
    action_match: bool
    action_reward: float
    tool_type: str | None


class CommunicateCheck(TypedDict):
    """``tau2.data_model.simulation.CommunicateCheck``."""

    info: str
    met: bool
    justification: str


class NLAssertionCheck(TypedDict):
    """``tau2.data_model.simulation.NLAssertionCheck``."""

    nl_assertion: str
    met: bool
    justification: str


class RewardInfo(TypedDict):
    """``tau2.data_model.simulation.RewardInfo``, as ``model_dump(mode="json")`` writes it."""

    reward: float
    db_check: DBCheck | None
    env_assertions: list[EnvAssertionCheck] | None
    action_checks: list[ActionCheck] | None
    nl_assertions: list[NLAssertionCheck] | None
    communicate_checks: list[CommunicateCheck] | None
    reward_basis: list[str] | None
    reward_breakdown: dict[str, float] | None
    info: dict[str, object] | None


class ChatFunction(TypedDict):
    """The function of a tool call in an OpenAI Chat Completions message."""

    name: str
    arguments: str


class ChatToolCall(TypedDict):
    """A tool call of an OpenAI Chat Completions assistant message, as the reference sends it back."""

    id: str
    type: str
    function: ChatFunction


class ToolFunction(TypedDict):
    """The function of an OpenAI function tool (``Tool.openai_schema``'s ``function``)."""

    name: str
    description: str
    parameters: dict[str, object]


class ToolSchema(TypedDict):
    """An OpenAI function tool as the reference's ``Tool.openai_schema`` gives it."""

    type: str
    function: ToolFunction
