"""The agent phase of one attempt (:func:`run_agent`): the harness runs the task within the agent's time limit.

A limit (the time limit, an attempt's calls, tokens or cost, a per-attempt service's limit) is not an error: the
phase ends ``limits_exceeded`` / ``agent_timeout`` and is verified as usual. An error after which the benchmark's
policy verifies is returned with the result (:class:`~.phases.AgentPhase`); any other error ends the attempt, as
does an error a per-attempt service met that stops the request (``fatal``).
"""

from __future__ import annotations

import asyncio
import copy
import time
from dataclasses import replace
from typing import Any

from agentcompass.conversation import CONVERSATION
from agentcompass.errors import AgentError, AttemptLimitReached, after_error, one_line
from agentcompass.interfaces import AgentResult, Environment, ExitStatus, Usage, error_policy

from .failures import classify_failure, stops_request
from .phases import AgentPhase, Phases
from .services import AttemptServices

__all__ = ["run_agent"]


async def run_agent(p: Phases, env: Environment | None, model: Any, services: AttemptServices) -> AgentPhase:
    """The agent phase of ``p``'s attempt in ``env`` with the attempt's ``model`` client and ``services``."""
    try:
        return AgentPhase(await _agent(p, env, model, services))
    except Exception as failure:
        exc = classify_failure(failure, env, "agent")
        policy = after_error(error_policy(p.rt.benchmark), exc, "agent")
        if not policy.verify or stops_request(exc):
            if exc is failure:
                raise
            raise exc from failure
        usage = copy.copy(model.usage) if model is not None else Usage()
        result = AgentResult(exit_status=ExitStatus.ERROR, usage=usage, info={"error": one_line(exc)})
        return AgentPhase(result, exc, policy)


async def _agent(p: Phases, env: Environment | None, model: Any, services: AttemptServices) -> AgentResult:
    rt, task, ctx = p.rt, p.task, p.ctx
    p.enter("agent")
    start = time.monotonic()
    try:
        async with asyncio.timeout(p.timeouts.agent) as cm:
            await _converse(p, env)
            result = await rt.harness.run(task, env, model, ctx)  # type: ignore[arg-type]
    except TimeoutError:
        if not cm.expired():
            raise
        result = AgentResult(exit_status=ExitStatus.AGENT_TIMEOUT, limit_hit="agent_timeout")
    except AttemptLimitReached as exc:  # a limit (calls, tokens, cost), not an error: verified as usual
        rt.logger.info("%s: %s", task.id, exc)
        result = AgentResult(exit_status=ExitStatus.LIMITS_EXCEEDED, limit_hit=exc.limit, info={"limit": str(exc)})
    except Exception as exc:
        _raise_fatal(services)  # an agent failing on a dead endpoint fails because of it
        result = _stopped_by_limit(p, services, exc)  # an agent program exiting after a service refused its call
    finally:
        p.took("agent", start)
    _raise_fatal(services)
    refused = services.limit_hit
    if refused is not None and result.exit_status != ExitStatus.LIMITS_EXCEEDED:  # a service's limit: not an error
        result = replace(result, exit_status=ExitStatus.LIMITS_EXCEEDED, limit_hit=refused)
    if model is not None:
        result.usage = copy.copy(model.usage)
    if ctx.conversation is not None and result.transcript is None:
        result.transcript = ctx.conversation.transcript
    return result


async def _converse(p: Phases, env: Environment | None) -> None:
    """A tool-use benchmark's conversation for this attempt (``ctx.conversation``), made before the agent runs."""
    make = CONVERSATION.of(p.rt.benchmark)
    if make is not None and p.ctx.conversation is None:
        p.ctx.conversation = await make(p.task, env, p.ctx)


def _raise_fatal(services: AttemptServices) -> None:
    """The error a per-attempt service met that stops the request (a dead endpoint), if one met it."""
    fatal = services.fatal
    if fatal is not None:
        raise fatal


def _stopped_by_limit(p: Phases, services: AttemptServices, exc: Exception) -> AgentResult:
    """The agent phase's result when the harness failed after a per-attempt service refused a call at a limit
    (the limit stopped it: ``limits_exceeded``); any other failure is raised again."""
    refused = services.limit_hit
    if refused is None or stops_request(exc):
        raise exc
    p.rt.logger.info(
        "%s: the agent stopped after a call was refused at a limit (%s): %s", p.task.id, refused, one_line(exc)
    )
    partial = exc.result if isinstance(exc, AgentError) else None
    info = {
        **(partial.info if isinstance(partial, AgentResult) else {}),
        "limit": refused,
        "agent_error": one_line(exc),
    }
    if isinstance(partial, AgentResult):
        return replace(partial, exit_status=ExitStatus.LIMITS_EXCEEDED, limit_hit=refused, info=info)
    return AgentResult(exit_status=ExitStatus.LIMITS_EXCEEDED, limit_hit=refused, info=info)
