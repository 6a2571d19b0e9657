"""The telecom environment of τ²-bench (``src/tau2/domains/telecom/environment.py``): its DBs, its policy, and the
sync between the agent's DB and the user's phone (``TelecomEnvironment.sync_tools``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcompass.benchmarks.tau2.domains._base import Environment

TECH_SUPPORT_POLICIES = {"manual": "tech_support_manual.md", "workflow": "tech_support_workflow.md"}


def telecom_policy(data_dir: Path, policy_type: str = "manual") -> str:
    """The agent's policy as the reference composes it from the telecom data directory: the main policy, then the
    tech-support policy (the manual, or the workflow for ``policy_type="workflow"``), each in its tag."""
    if policy_type not in TECH_SUPPORT_POLICIES:
        raise ValueError(f"Invalid policy type: {policy_type}")
    main_policy = (data_dir / "main_policy.md").read_text()
    tech_support_policy = (data_dir / TECH_SUPPORT_POLICIES[policy_type]).read_text()
    return (
        "<main_policy>\n"
        + main_policy
        + "\n</main_policy>\n"
        + "<tech_support_policy>\n"
        + tech_support_policy
        + "\n</tech_support_policy>"
    )


class TelecomEnvironment(Environment):
    """The telecom environment: after every tool call and state change, the phone follows the agent's DB."""

    def sync_tools(self) -> None:
        sync_tools(self.tools, self.user_tools)


def sync_tools(tools: Any, user_tools: Any) -> None:
    """The reference's ``TelecomEnvironment.sync_tools``: the phone's surroundings follow the agent's DB (line
    active, roaming allowed, data usage exceeded), a paid payment request marks its bill paid, and a bill awaiting
    payment becomes the phone's payment request."""
    surroundings = user_tools.db.surroundings
    phone_number = surroundings.phone_number
    if phone_number is None:
        return
    line = tools._get_line_by_phone(phone_number)
    if line is None:
        raise ValueError(f"Wrong scenario, line not found for phone number: {phone_number}")
    surroundings.line_active = line.status == tools.m.LineStatus.ACTIVE
    surroundings.roaming_allowed = bool(line.roaming_enabled)
    plan = tools._get_plan_by_id(line.plan_id)
    if plan is None:
        raise ValueError(f"Wrong scenario, invalid plan id ({line.plan_id}) for the phone number {phone_number}")
    surroundings.mobile_data_usage_exceeded = line.data_used_gb >= plan.data_limit_gb + line.data_refueling_gb
    request = surroundings.payment_request
    if request is not None and request.paid:
        tools._set_bill_to_paid(request.bill_id)
        surroundings.payment_request = None
    if surroundings.payment_request is None:
        bills = tools._get_bills_awaiting_payment(tools.get_customer_by_phone(phone_number))
        if len(bills) != 0:
            surroundings.payment_request = user_tools.m.PaymentRequest(
                bill_id=bills[0].bill_id, amount_due=bills[0].total_due
            )
