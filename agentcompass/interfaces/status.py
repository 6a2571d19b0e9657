"""The status enums: what the files on disk hold for an attempt, a run and the process."""

from __future__ import annotations

import enum

# --------------------------------------------------------------------------- statuses
# str-valued: the values are what the files on disk hold, and ``status == "completed"`` keeps working.


class AttemptStatus(enum.StrEnum):
    """How one attempt ended (``result.json``, ``results.jsonl``): verified (a reward, possibly 0), or an error."""

    COMPLETED = "completed"
    ERROR = "error"


class RunStatus(enum.StrEnum):
    """A run (``run.json``, summary metadata), a request outcome, an orchestration. ``completed``: every task ran
    (rewards may be low); ``failed``: every task ended in an error, a report failed, or it crashed."""

    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"
    STOPPED_BUDGET = "stopped_budget"  # cost_limit_usd / token_limit reached: no attempt started after it


class ExitStatus(enum.StrEnum):
    """How the agent phase ended (:attr:`AgentResult.exit_status`; a harness may add values of its own). Only
    ``error`` is an error; after the others the attempt is verified as usual."""

    COMPLETED = "completed"
    SUBMITTED = "submitted"
    LIMITS_EXCEEDED = "limits_exceeded"
    AGENT_TIMEOUT = "agent_timeout"
    ERROR = "error"  # the agent phase raised, and the benchmark's error policy verifies anyway
