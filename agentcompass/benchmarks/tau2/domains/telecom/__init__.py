"""τ²-bench telecom domain: the agent's tools (``tau2/domains/telecom/tools.py``), the user's phone
(``user_tools.py``), their sync and the env assertions, reimplemented with the reference's outputs, error texts and
DB changes. Tool names, types and descriptions, and the data models, are read from the reference's source; the DBs
from ``db.toml`` / ``user_db.toml``; the policy from ``main_policy.md`` and ``tech_support_manual.md``."""

from __future__ import annotations

from agentcompass.benchmarks.tau2.domains import DomainSpec, KitSource
from agentcompass.benchmarks.tau2.domains.telecom.agent_tools import TelecomTools
from agentcompass.benchmarks.tau2.domains.telecom.environment import TelecomEnvironment, telecom_policy
from agentcompass.benchmarks.tau2.domains.telecom.user_tools import TelecomUserTools

__all__ = ["DOMAIN", "TelecomEnvironment", "TelecomTools", "TelecomUserTools", "telecom_policy"]

_SRC = "tau2.domains.telecom"

DOMAIN = DomainSpec(
    name="telecom",
    toolkit=TelecomTools,
    source=KitSource(f"{_SRC}.tools", "TelecomTools", f"{_SRC}.data_model", "TelecomDB", "db.toml"),
    user_toolkit=TelecomUserTools,
    user_source=KitSource(
        f"{_SRC}.user_tools", "TelecomUserTools", f"{_SRC}.user_data_model", "TelecomUserDB", "user_db.toml"
    ),
    environment=TelecomEnvironment,
    policy=telecom_policy,
)
