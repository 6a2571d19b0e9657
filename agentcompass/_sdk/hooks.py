"""The features the SDK hands down to the orchestrator (recipes, dependency installation, analysis, the model
gateway as a request-scoped service), and the checks a composed request needs beyond its schema."""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from agentcompass._orchestrator.scheduling import Hooks

if TYPE_CHECKING:  # the recipe loader is imported only when a recipe is named
    from agentcompass._config import RecipeRecord, ResolvedRequest
    from agentcompass._orchestrator.scheduling import RecipeHooks


def _recipes(records: dict[str, RecipeRecord], logger: logging.Logger) -> RecipeHooks | None:
    from agentcompass._recipes import RecipeRunner

    return RecipeRunner.from_config(records, logger=logger)


def _dependencies(enabled: bool) -> AbstractContextManager[Any]:
    from agentcompass._deps import auto_install_scope

    return auto_install_scope(enabled)


async def _analysis(
    result: dict[str, Any], params: dict[str, Any], logger: logging.Logger, judge: bool
) -> dict[str, Any]:
    from agentcompass._analysis import attach_analysis

    return await attach_analysis(result, params, logger=logger, judge=judge)


def _executor(kind: str, configs: list[Any], pool: Any, logger: logging.Logger) -> Any:
    from agentcompass._ray import RayExecutor

    return RayExecutor(configs, pool, logger, worker_services=(worker_gateway,))


def request_gateway(rt: Any) -> Any:
    """The request's model gateway (``ctx.gateway``): a service of every request that has a model."""
    if rt.model is None:
        return None
    from agentcompass.gateway.service import GatewayService

    return GatewayService(rt.logger)


def worker_gateway(rt: Any) -> Any:
    """The model gateway of a Ray worker process: every attempt it runs uses it; it closes after a minute without
    an attempt using it (and with the process)."""
    if rt.model is None:
        return None
    from agentcompass.gateway.service import GatewayService

    return GatewayService(logging.getLogger("agentcompass.gateway"), idle_close_s=WORKER_GATEWAY_IDLE_S)


WORKER_GATEWAY_IDLE_S = 60.0


def default_hooks() -> Hooks:
    """Every feature on: what ``run_evaluation``, ``launch`` and the CLI hand to the orchestrator."""
    return Hooks(
        recipes=_recipes,
        dependencies=_dependencies,
        analysis=_analysis,
        executor=_executor,
        services=(request_gateway,),
    )


def check_analysis_params(resolved: ResolvedRequest) -> None:
    """``execution.analysis_params`` of a composed request, validated before anything runs (the analysis
    package owns their schema; every other value is validated by the request schema and the components)."""
    ex = resolved.config.execution
    if ex.enable_analysis or ex.analysis_params:
        from agentcompass._analysis import parse_params

        parse_params(ex.analysis_params)
