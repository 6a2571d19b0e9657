"""Text for people: the resolved config, result tables, one-line error messages (secrets never shown)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcompass._orchestrator.record import RunResult


def render_config(**kwargs: Any) -> str:
    """The resolved config of ``run_evaluation(**kwargs)`` as YAML, secrets redacted; runs nothing."""
    import yaml

    from agentcompass._config import redact_config as redact

    from .evaluate import compose_from_kwargs

    return str(yaml.safe_dump(redact(compose_from_kwargs(kwargs).data), sort_keys=False))


def format_result(result: RunResult) -> str:
    """The readable summary of one run's result (what ``agentcompass run`` prints)."""
    from agentcompass._orchestrator.metrics import format_table

    return format_table(result)


def format_orchestration(result: Any) -> tuple[str, str]:
    """(each request's outcome and table, the orchestration's one-line footer) of an OrchestrationResult."""
    lines = []
    for name, outcome in result.requests.items():
        lines.append(f"=== {name}: {outcome.status}" + (f" ({outcome.error})" if outcome.error else ""))
        if outcome.result is not None:
            lines.append(format_result(outcome.result))
    pool = result.pool
    footer = (
        f"orchestration {result.name}: {result.status} in {result.duration_s:.1f}s; pool {pool.get('size')} "
        f"slots, max running {pool.get('max_running')}, utilisation {pool.get('utilisation')}"
    )
    return "\n".join(lines), footer


def error_message(exc: BaseException) -> str:
    """``str(exc)`` with every registered secret removed (the type name when the message is empty)."""
    from agentcompass._config import scrub

    return scrub(str(exc)) or type(exc).__name__
