"""What the orchestrator needs from the features above it, handed in by the SDK.

The orchestrator never imports recipes, analysis or dependency installation: the SDK builds a :class:`Hooks`
(``agentcompass._sdk.hooks.default_hooks``) and passes it down. A request that needs a hook the caller did not
provide is a ConfigError, never silently run without it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, Protocol

from agentcompass.errors import ConfigError
from agentcompass.interfaces import AttemptContext, Environment

from .services import ServiceFactory


class RecipeHooks(Protocol):
    """The enabled recipes of one request."""

    async def run_hooks(self, phase: str, env: Environment, ctx: AttemptContext) -> None:
        """Run every recipe's hook of ``phase`` (after_open, before_agent, after_agent, before_verify)."""
        ...


RecipesFactory = Callable[[dict[str, Any], logging.Logger], "RecipeHooks | None"]
DependencyScope = Callable[[bool], AbstractContextManager[Any]]
Analysis = Callable[[dict[str, Any], dict[str, Any], logging.Logger, bool], Awaitable[dict[str, Any]]]
ExecutorFactory = Callable[[str, list[Any], Any, logging.Logger], Any]  # (kind, configs, pool, logger) -> Executor


@dataclass(frozen=True)
class Hooks:
    """``recipes(records, logger)``: the runner of the resolved request's recipes (``config.recipes``);
    ``dependencies(enabled)``: a context in which optional Python dependencies are installed when missing;
    ``analysis(result, analysis_params, logger, judge)``: the post-run analysis, returning the result;
    ``executor(kind, configs, pool, logger)``: an :class:`~agentcompass._orchestrator.scheduling.executor.Executor` for
    ``execution.executor`` other than ``local``; ``services``: factories of request-scoped services
    (:mod:`agentcompass._orchestrator.scheduling.services`), each started before a request's first attempt and closed on
    every path it ends by."""

    recipes: RecipesFactory | None = None
    dependencies: DependencyScope | None = None
    analysis: Analysis | None = None
    executor: ExecutorFactory | None = None
    services: Sequence[ServiceFactory] = ()

    def recipe_runner(self, records: dict[str, Any], logger: logging.Logger) -> RecipeHooks | None:
        if not records:
            return None
        if self.recipes is None:
            raise ConfigError(f"recipes {', '.join(records)} are enabled but this entry point runs no recipes")
        return self.recipes(records, logger)

    def dependency_scope(self, enabled: bool) -> AbstractContextManager[Any]:
        if not enabled:
            return nullcontext()
        if self.dependencies is None:
            raise ConfigError("auto_install_dependencies is set but this entry point installs no dependencies")
        return self.dependencies(enabled)

    def check(self, *, recipes: dict[str, Any], auto_install: bool, analysis: bool) -> None:
        """Fail before anything runs when the request needs a hook that is missing."""
        if recipes and self.recipes is None:
            raise ConfigError(f"recipes {', '.join(recipes)} are enabled but this entry point runs no recipes")
        if auto_install and self.dependencies is None:
            raise ConfigError("auto_install_dependencies is set but this entry point installs no dependencies")
        if analysis and self.analysis is None:
            raise ConfigError("enable_analysis is set but this entry point runs no analysis")
