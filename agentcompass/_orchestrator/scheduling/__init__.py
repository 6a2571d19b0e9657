"""Running attempts: one request (:mod:`.request`), one attempt (:mod:`.attempt`) inside its frame
(:mod:`.frame`: slot, admission, budget accounting, cancel), run as its phases (:mod:`.phases`, :mod:`.agent_phase`)
under its resolved limits (:mod:`.timeouts`), its failures typed in one place (:mod:`.failures`), the pool
(:mod:`.pool`), the request's components and services with their per-attempt hook (:mod:`.runtime`,
:mod:`.services`, :mod:`.roles`), the hooks the SDK hands in
(:mod:`.hooks`), executors (:mod:`.executor`), retries (:mod:`.retry`), resources (:mod:`.resources`) and the
integrity review that runs the judge model (:mod:`.review`).

Budgets (:mod:`.budget`) live here: they decide whether an attempt starts and cancel the ones in flight, which is
scheduling; they read the record's spending from below. So does console progress (:mod:`.progress`): its events are
what a running request reports, and the console display follows them (its bars come from :mod:`..record`'s
logging).

The top layer of the orchestrator: it imports :mod:`..record` and :mod:`..metrics`, never the other way round.
Others import the names below from this package, never its modules; they are imported on first use (PEP 562).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # explicit re-exports, for the type checker
    from .attempt import run_attempt as run_attempt
    from .budget import Budget as Budget
    from .budget import budget_message as budget_message
    from .executor import Executor as Executor
    from .executor import open_executor as open_executor
    from .failures import FailureRecord as FailureRecord
    from .failures import classify_failure as classify_failure
    from .failures import stopping_error as stopping_error
    from .frame import AttemptFrame as AttemptFrame
    from .hooks import Hooks as Hooks
    from .hooks import RecipeHooks as RecipeHooks
    from .pool import Pool as Pool
    from .pool import RateLimiter as RateLimiter
    from .progress import AttemptStarted as AttemptStarted
    from .progress import PhaseChanged as PhaseChanged
    from .progress import Progress as Progress
    from .progress import RequestFinished as RequestFinished
    from .request import RequestRun as RequestRun
    from .review import load_rubric as load_rubric
    from .review import parse_params as parse_params
    from .review import review_run as review_run
    from .roles import ModelRoles as ModelRoles
    from .runtime import RequestRuntime as RequestRuntime
    from .timeouts import AttemptTimeouts as AttemptTimeouts
    from .timeouts import attempt_timeouts as attempt_timeouts

_EXPORTS = {
    "run_attempt": "attempt",
    "Budget": "budget",
    "budget_message": "budget",
    "Executor": "executor",
    "open_executor": "executor",
    "FailureRecord": "failures",
    "classify_failure": "failures",
    "stopping_error": "failures",
    "AttemptFrame": "frame",
    "Hooks": "hooks",
    "RecipeHooks": "hooks",
    "Pool": "pool",
    "RateLimiter": "pool",
    "AttemptStarted": "progress",
    "PhaseChanged": "progress",
    "Progress": "progress",
    "RequestFinished": "progress",
    "RequestRun": "request",
    "load_rubric": "review",
    "parse_params": "review",
    "review_run": "review",
    "ModelRoles": "roles",
    "RequestRuntime": "runtime",
    "AttemptTimeouts": "timeouts",
    "attempt_timeouts": "timeouts",
}

__all__ = [
    "AttemptFrame",
    "AttemptTimeouts",
    "FailureRecord",
    "attempt_timeouts",
    "classify_failure",
    "stopping_error",
    "AttemptStarted",
    "Budget",
    "Executor",
    "Hooks",
    "ModelRoles",
    "PhaseChanged",
    "Pool",
    "Progress",
    "RateLimiter",
    "RecipeHooks",
    "RequestFinished",
    "RequestRun",
    "RequestRuntime",
    "budget_message",
    "load_rubric",
    "open_executor",
    "parse_params",
    "review_run",
    "run_attempt",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return vars(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"))[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
