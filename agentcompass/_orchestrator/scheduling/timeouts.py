"""Every time limit of one attempt, resolved once from its five sources (:func:`attempt_timeouts`) and passed to
its phases as :class:`AttemptTimeouts`: nothing deeper reads a limit from the config, the task or a global.

The sources: the fixed limits of the work around the agent (:data:`SETUP_TIMEOUT_S`), ``execution.timeouts``
(``env_open``, ``close``, and ``agent`` / ``verifier``, which override the task's own), the task's
``agent_timeout_s`` / ``verifier_timeout_s``, and the verifier's watchdog (:data:`VERIFY_WATCHDOG_MARGIN_S`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from agentcompass.interfaces import Task

__all__ = ["SETUP_TIMEOUT_S", "VERIFY_WATCHDOG_MARGIN_S", "AttemptTimeouts", "attempt_timeouts"]

SETUP_TIMEOUT_S = 900.0  # setup, ending the agent's processes, saving artifacts
VERIFY_WATCHDOG_MARGIN_S = 120.0
DEFAULT_VERIFIER_S = 1800.0  # a task without its own verifier limit


@dataclass(frozen=True, slots=True)
class AttemptTimeouts:
    """One attempt's limits in seconds (None: none). ``agent`` is the task's (as overridden), also
    ``ctx.time_limit_s``; ``verify`` is the watchdog around the benchmark's grading, which keeps the task's
    ``verifier_timeout_s`` itself; ``setup`` also bounds ending the agent's processes and saving artifacts."""

    env_open: float | None
    setup: float
    agent: float | None
    verify: float
    close: float


def attempt_timeouts(task: Task, config: Any) -> tuple[Task, AttemptTimeouts]:
    """``task`` with ``execution.timeouts.agent`` / ``.verifier`` applied (as the benchmark and harness see it),
    and the attempt's limits (``config``: the request's RequestConfig)."""
    t = config.execution.timeouts
    if t.agent or t.verifier:
        task = replace(
            task,
            agent_timeout_s=t.agent or task.agent_timeout_s,
            verifier_timeout_s=t.verifier or task.verifier_timeout_s,
        )
    watchdog = (task.verifier_timeout_s or DEFAULT_VERIFIER_S) * 1.5 + VERIFY_WATCHDOG_MARGIN_S
    return task, AttemptTimeouts(
        env_open=t.env_open, setup=SETUP_TIMEOUT_S, agent=task.agent_timeout_s, verify=watchdog, close=t.close
    )
