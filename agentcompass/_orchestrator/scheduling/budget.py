"""Run-wide budgets: ``execution.cost_limit_usd`` and ``execution.token_limit`` of a request (and, for
``launch``, the orchestration's ``runtime.cost_limit_usd`` / ``runtime.token_limit`` over all its requests).

What counts is what the endpoint was paid for: the cost and the tokens (input + output) of every attempt of the
request, retries and samples included, and of the earlier runs a ``--reuse`` continues; calls answered from the
cache or a replayed run cost nothing. A running attempt counts as it goes (its model client's usage; on a Ray
worker, once it ends). Once a limit is reached, no attempt starts: an attempt waiting for its slot is dropped
before it begins (nothing on disk), attempts in flight finish (``budget_policy: finish``) or are cancelled
(``cancel``), and the run ends ``stopped_budget``. A later ``--reuse`` with a larger budget runs the rest.

The dispatch loop needs two calls: :meth:`Budget.admits` when an attempt holds its slot (False: it never
starts), and :meth:`Budget.watch` / :meth:`Budget.finish` around a running attempt.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypedDict

from agentcompass.errors import ConfigError
from agentcompass.interfaces import SET_ATTEMPT_COST_LIMIT, Usage, add_cost

from ..record import UsageRecord, usage_record

if TYPE_CHECKING:
    from ..record import RunResult, RunStore

POLL_S = 0.2  # how often a ``cancel`` budget looks at the spending of running attempts


class Spending(TypedDict, total=False):
    cost_usd: float | None  # None: a price was unknown
    tokens: int


class BudgetState(TypedDict):
    """What run.json and summary.json say of one budget (``budget``)."""

    scope: str  # request | orchestration
    cost_limit_usd: float | None
    token_limit: int | None
    policy: str  # finish | cancel
    spent_cost_usd: float | None
    spent_tokens: int
    spent_before: Spending
    reached: bool
    reason: str | None
    reached_at: str | None
    not_started: int
    checked_at: float


class Budget:
    """Limits on the spending of one request (or one orchestration); shared by every attempt it covers."""

    def __init__(
        self,
        scope: str,
        cost_limit_usd: float | None,
        token_limit: int | None,
        policy: str = "finish",
        prior: Spending | None = None,
    ) -> None:
        self.scope, self.cost_limit, self.token_limit, self.policy = scope, cost_limit_usd, token_limit, policy
        prior = prior or Spending()
        self.cost: float | None = prior.get("cost_usd", 0.0)
        self.tokens: int = int(prior.get("tokens", 0))
        self.prior: Spending = {"cost_usd": self.cost, "tokens": self.tokens}
        self._running: dict[int, Usage] = {}
        self.reached_at: str | None = None
        self.reason: str | None = None
        self.n_not_started = 0
        self.exhausted = asyncio.Event()

    def add_prior(self, prior: Spending) -> None:
        """Count what an earlier run spent (a request of the orchestration continuing a run)."""
        self.cost = add_cost(self.cost, prior.get("cost_usd", 0.0))
        self.tokens += int(prior.get("tokens", 0))
        self.prior = {"cost_usd": self.cost, "tokens": self.tokens}

    @property
    def active(self) -> bool:
        return self.cost_limit is not None or self.token_limit is not None

    # ------------------------------------------------------------------ the hooks
    def admits(self) -> bool:
        """May a new attempt start now? (False once a limit is reached: counted as not started.)"""
        if self.active and self._check():
            self.n_not_started += 1
            return False
        return True

    def watch(self, key: int, usage: Usage | None) -> None:
        """A running attempt's live usage (its model client's), counted until :meth:`finish`."""
        if usage is not None:
            self._running[key] = usage

    def finish(self, key: int, usage: UsageRecord | None) -> None:
        """The attempt ended: its final usage (``result.json``'s ``usage``) is spent."""
        self._running.pop(key, None)
        spent = Usage.from_dict(dict(usage) if usage else None)
        self.cost = add_cost(self.cost, spent.cost_usd)
        self.tokens += spent.total_tokens
        self._check()

    # ------------------------------------------------------------------ state
    def spent(self) -> tuple[float | None, int]:
        cost, tokens = self.cost, self.tokens
        for usage in list(self._running.values()):
            cost, tokens = add_cost(cost, usage.cost_usd), tokens + usage.total_tokens
        return cost, tokens

    def _check(self) -> bool:
        if self.reason is not None:
            return True
        cost, tokens = self.spent()
        if self.cost_limit is not None and cost is not None and cost >= self.cost_limit:
            self.reason = f"{self.scope} cost_limit_usd={self.cost_limit} reached (${cost:.4f} spent)"
        elif self.token_limit is not None and tokens >= self.token_limit:
            self.reason = f"{self.scope} token_limit={self.token_limit} reached ({tokens} tokens spent)"
        if self.reason is None:
            return False
        self.reached_at = datetime.now(UTC).isoformat()
        self.exhausted.set()
        return True

    async def wait_exhausted(self) -> None:
        """Returns once a limit is reached, counting running attempts as they spend (for ``cancel``)."""
        while not self._check():
            try:
                await asyncio.wait_for(self.exhausted.wait(), POLL_S)
            except TimeoutError:
                pass

    def record(self) -> BudgetState:
        """What run.json and summary.json say of the budget."""
        cost, tokens = self.spent()
        return {
            "scope": self.scope,
            "cost_limit_usd": self.cost_limit,
            "token_limit": self.token_limit,
            "policy": self.policy,
            "spent_cost_usd": None if cost is None else round(cost, 6),
            "spent_tokens": tokens,
            "spent_before": self.prior,
            "reached": self.reason is not None,
            "reason": self.reason,
            "reached_at": self.reached_at,
            "not_started": self.n_not_started,
            "checked_at": round(time.time(), 3),
        }


def with_roles(usage: UsageRecord | None, by_role: dict[str, UsageRecord] | None) -> UsageRecord:
    """An attempt's whole spending: its model's usage plus its model roles' (a user simulator, a judge)."""
    total = Usage.from_dict(dict(usage) if usage else None)
    for part in (by_role or {}).values():
        total.add(Usage.from_dict(dict(part)))
    return usage_record(total)


def prior_spending(store: RunStore, task_ids: list[str]) -> Spending:
    """What the earlier runs of a reused run spent: ``usage`` and ``usage_by_role`` in every attempt's result.json."""
    cost: float | None = 0.0
    tokens = 0
    for task_id in task_ids:
        for sample in store.samples_of(task_id):
            for record in store.attempt_records(task_id, sample):
                result = record.read_result() or {}
                usage = Usage.from_dict(dict(with_roles(result.get("usage"), result.get("usage_by_role"))))  # type: ignore[arg-type]
                cost, tokens = add_cost(cost, usage.cost_usd), tokens + usage.total_tokens
    return {"cost_usd": cost, "tokens": tokens}


def check_config(execution: Any, model: Any, price: dict[str, Any] | None, shared: list[Budget]) -> None:
    """A cost limit needs a known price (an unknown cost can never reach it) and a model that enforces it."""
    limits = {"cost_limit_usd": execution.cost_limit_usd, "attempt_cost_limit_usd": execution.attempt_cost_limit_usd}
    named = [f"execution.{k}={v}" for k, v in limits.items() if v is not None]
    named += [f"runtime.orchestration_cost_limit_usd={b.cost_limit}" for b in shared if b.cost_limit is not None]
    if not named or model is None:
        return
    if price is not None and price.get("source") is None:
        raise ConfigError(
            f"{named[0]} cannot be enforced: the price of model "
            f"{model.model_id!r} is unknown ({price.get('reason')}); set model.prices"
        )
    if execution.attempt_cost_limit_usd is not None and SET_ATTEMPT_COST_LIMIT.of(model) is None:
        raise ConfigError(
            f"execution.attempt_cost_limit_usd: the model client {type(model).__name__} cannot enforce it "
            f"(no set_attempt_cost_limit)"
        )


def request_budget(execution: Any, prior: Spending) -> Budget:
    return Budget("request", execution.cost_limit_usd, execution.token_limit, execution.budget_policy, prior)


async def cancel_on_budget(budgets: list[Budget], jobs: list[asyncio.Future], log: Any) -> None:
    """``budget_policy: cancel``: once any budget is reached, cancel the attempts still running or waiting."""
    waits = [asyncio.ensure_future(b.wait_exhausted()) for b in budgets if b.active]
    if not waits:
        return
    try:
        done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
    reason = next((b.reason for b in budgets if b.reason), "a budget")
    running = [job for job in jobs if not job.done()]
    if running:
        log.warning("%s: cancelling %d attempts in flight (budget_policy: cancel)", reason, len(running))
    for job in running:
        job.cancel()


def budget_message(result: RunResult) -> str:
    """The one line a run stopped by its budget ends with."""
    meta, m = result["metadata"], result["metrics"]
    reasons = "; ".join(str(b["reason"]) for b in meta.get("budget", []) if b.get("reason")) or "budget reached"
    return (
        f"stopped_budget: {reasons}; {m['n_samples']} samples finished, the others not started; "
        f"results in {result['paths']['run_dir']} (continue with --reuse {meta['run_id']} and a larger budget)"
    )
