"""The result of grading a τ²-bench transcript: the reference's ``RewardInfo`` (``tau2.data_model.simulation``) as
plain data, field for field, so that it can be stored, shown and compared with the reference's
``RewardInfo.model_dump(mode="json")``."""

from __future__ import annotations

from dataclasses import dataclass, field

from .shapes import ActionCheck, CommunicateCheck, DBCheck, EnvAssertionCheck, NLAssertionCheck, RewardInfo


@dataclass
class Component:
    """One evaluator's ``RewardInfo`` (env, action, communicate or NL assertions): only the fields it sets."""

    reward: float
    reward_breakdown: dict[str, float] | None = None
    info: dict[str, object] | None = None
    db_check: DBCheck | None = None
    env_assertions: list[EnvAssertionCheck] | None = None
    action_checks: list[ActionCheck] | None = None
    communicate_checks: list[CommunicateCheck] | None = None
    nl_assertions: list[NLAssertionCheck] | None = None


@dataclass
class RewardResult:
    """A graded transcript. ``reward``: the product of the components of ``reward_basis`` (0.0 for a premature
    termination). The check lists hold one plain dict per check, as the reference writes them:

    - ``db_check``: ``{db_match, db_reward}``
    - ``env_assertions``: ``[{env_assertion: {env_type, func_name, arguments, assert_value, message}, met, reward}]``
    - ``action_checks``: ``[{action: {action_id, requestor, name, arguments, info, compare_args}, action_match,
      action_reward, tool_type}]``
    - ``communicate_checks``: ``[{info, met, justification}]``
    - ``nl_assertions``: ``[{nl_assertion, met, justification}]``
    - ``reward_breakdown``: reward type (``DB``, ``ENV_ASSERTION``, ``NL_ASSERTION``, ``ACTION``, ``COMMUNICATE``)
      -> that component's reward, for the types of the basis
    - ``info``: notes (``{"note": ...}`` for a premature termination, else ``{env, nl, communicate, action}``)
    """

    reward: float
    db_check: DBCheck | None = None
    env_assertions: list[EnvAssertionCheck] | None = None
    action_checks: list[ActionCheck] | None = None
    nl_assertions: list[NLAssertionCheck] | None = None
    communicate_checks: list[CommunicateCheck] | None = None
    reward_basis: list[str] | None = None
    reward_breakdown: dict[str, float] | None = None
    info: dict[str, object] | None = field(default=None)
    termination_reason: str | None = None  # the reference's TerminationReason value the transcript maps to

    def to_dict(self) -> RewardInfo:
        """The reference's ``RewardInfo.model_dump(mode="json")``."""
        return {
            "reward": self.reward,
            "db_check": self.db_check,
            "env_assertions": self.env_assertions,
            "action_checks": self.action_checks,
            "nl_assertions": self.nl_assertions,
            "communicate_checks": self.communicate_checks,
            "reward_basis": self.reward_basis,
            "reward_breakdown": self.reward_breakdown,
            "info": self.info,
        }
