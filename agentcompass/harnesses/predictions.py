"""The ``predictions`` harness: submits the benchmark's given solution per task (a predictions file), so that
existing predictions (another tool's ``preds.jsonl``) are graded exactly like an agent's submission.

It runs no model and never touches an environment (``needs_environment = False``): with a benchmark that grades
in a fresh environment no agent environment opens at all. A task without a prediction submits nothing; the
benchmark decides what that means (SWE-bench: not run, listed as incomplete, as the official harness does).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from agentcompass.errors import ConfigError
from agentcompass.interfaces import (
    SUPPLIED_SOLUTION,
    AgentResult,
    AttemptContext,
    ComponentContext,
    Environment,
    ModelClient,
    Task,
)


class PredictionsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PredictionsHarness:
    """Submits ``ctx.benchmark.supplied_solution(task)`` (the SuppliedSolutions capability)."""

    id = "predictions"
    requires_model: ClassVar[bool] = False
    needs_environment: ClassVar[bool] = False
    config_class = PredictionsConfig

    def __init__(self, config: PredictionsConfig, ctx: ComponentContext | None) -> None:
        self.config = config

    async def run(
        self, task: Task, env: Environment | None, model: ModelClient | None, ctx: AttemptContext
    ) -> AgentResult:
        supplied = SUPPLIED_SOLUTION.of(ctx.benchmark)
        if supplied is None:
            raise ConfigError(
                f"harness {self.id!r}: benchmark {ctx.benchmark.id!r} supplies no "
                f"solutions (it has no predictions input)"
            )
        solution = supplied(task)
        if solution is None:
            return AgentResult(exit_status="no_prediction", submission=None, info={"prediction": False})
        return AgentResult(
            exit_status="submitted", submission=solution.submission, info={"prediction": True, **solution.info}
        )
