"""The ``mini_swe_agent`` harness: query -> exactly one bash action -> run it in a fresh subshell -> observe.

Limits (steps, cost, wall time) and repeated format errors end the run without an error: the attempt is
still graded. The trajectory (mini-swe-agent's format) is rewritten after every step.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from pathlib import Path
from typing import Any, ClassVar

from agentcompass.errors import AgentError
from agentcompass.interfaces import AgentResult, AttemptContext, ComponentContext, Environment, ModelClient, Task

from . import parts
from .config import MiniSweAgentConfig

TRAJECTORY_FORMAT = "mini-swe-agent-1"
EXIT_STATUS = {"Submitted": "submitted", "LimitsExceeded": "limits_exceeded", "TimeExceeded": "limits_exceeded",
               "RepeatedFormatError": "repeated_format_error"}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"agentcompass-{version('agentcompass')}"
    except PackageNotFoundError:
        return "agentcompass"


class _Run:
    """State of one attempt: messages, counters, and the trajectory file."""

    def __init__(self, task: Task, env: Environment, model: ModelClient, ctx: AttemptContext,
                 config: MiniSweAgentConfig) -> None:
        self.task, self.env, self.model, self.config = task, env, model, config
        self.messages: list[dict[str, Any]] = []
        self.n_calls = 0
        self.n_format_errors = 0
        self.consecutive_format_errors = 0
        self.started = time.monotonic()
        self.exit_status: str | None = None
        self.submission = ""
        self.limit: str | None = None
        self.crash: dict[str, str] = {}
        self.path = Path(ctx.attempt_dir) / parts.trajectory_name(task.id)

    def add(self, role: str, content: str, **extra: Any) -> None:
        message: dict[str, Any] = {"role": role, "content": content}
        if extra:
            message["extra"] = extra
        self.messages.append(message)

    def save(self, harness_type: str) -> None:
        info: dict[str, Any] = {
            "exit_status": self.exit_status, "submission": self.submission,
            "model_stats": {"instance_cost": self.model.usage.cost_usd, "api_calls": self.n_calls},
            "mini_version": _version(),
            "config": {"agent": self.config.model_dump(), "model": {"model_name": self.model.model_id},
                       "environment": {"cwd": self.env.workdir, "env": self.config.env,
                                       "timeout": self.config.command_timeout_s, **_describe(self.env)},
                       "agent_type": harness_type, "model_type": _type_name(self.model),
                       "environment_type": _type_name(self.env)},
            **self.crash,
        }
        parts.write_json_atomic(self.path, {"info": info, "messages": self.messages,
                                            "trajectory_format": TRAJECTORY_FORMAT, "instance_id": self.task.id})


def _type_name(obj: Any) -> str:
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


def _describe(env: Environment) -> dict[str, Any]:
    try:
        return {"describe": env.describe()}
    except Exception:  # describe() is informational only
        return {}


class MiniSweAgentHarness:
    """Implements :class:`agentcompass.interfaces.Harness` with mini-swe-agent's text-mode loop."""

    id = "mini_swe_agent"
    requires_model: ClassVar[bool] = True
    config_class = MiniSweAgentConfig

    def __init__(self, config: MiniSweAgentConfig, ctx: ComponentContext | None = None) -> None:
        self.config, self.ctx = config, ctx
        self.templates = parts.Templates(config)

    def _vars(self, run: _Run, **extra: Any) -> dict[str, Any]:
        c = self.config
        return {"task": run.task.instruction, "instance_id": run.task.id, "workdir": run.env.workdir,
                "submit_command": c.submit_command, "step_limit": c.step_limit, "cost_limit": c.cost_limit,
                "command_timeout_s": c.command_timeout_s, "output_limit_chars": c.output_limit_chars, **extra}

    async def run(self, task: Task, env: Environment, model: ModelClient | None,
                  ctx: AttemptContext) -> AgentResult:
        if model is None:
            raise AgentError("harness mini_swe_agent needs a model (got model 'none')")
        run = _Run(task, env, model, ctx, self.config)
        run.add("system", self.templates.render("system_template", **self._vars(run)))
        run.add("user", self.templates.render("instance_template", **self._vars(run)))
        run.save(_type_name(self))
        try:
            await self._loop(run)
        except BaseException as exc:        # cancelled (agent timeout) or crashed: keep the record, re-raise
            run.exit_status = "AgentTimeout" if isinstance(exc, asyncio.CancelledError) else type(exc).__name__
            run.crash = {"exception_str": str(exc), "traceback": "".join(traceback.format_exception(exc))}
            run.save(_type_name(self))
            raise
        return AgentResult(exit_status=EXIT_STATUS.get(run.exit_status or "", "completed"),
                           submission=run.submission, n_turns=run.n_calls, usage=model.usage,
                           trajectory_path=str(run.path), limit_hit=run.limit,
                           n_format_errors=run.n_format_errors,
                           info={"model_name": model.model_id, "mini_exit_status": run.exit_status})

    async def _loop(self, run: _Run) -> None:
        while True:
            try:
                await self._step(run)
            except parts.Flow as flow:
                run.add("user", flow.message)
                if flow.terminating:
                    run.exit_status = type(flow).__name__
                    run.submission = flow.message if isinstance(flow, parts.Submitted) else ""
                    run.limit = getattr(flow, "limit", None) or None
                    run.save(_type_name(self))
                    return
            run.save(_type_name(self))

    def _check_limits(self, run: _Run) -> None:
        c = self.config
        if 0 < c.step_limit <= run.n_calls:
            raise parts.LimitsExceeded("", "step_limit")
        if 0 < c.cost_limit <= run.model.usage.cost_usd:
            raise parts.LimitsExceeded("", "cost_limit")
        if 0 < c.wall_time_limit_s <= time.monotonic() - run.started:
            raise parts.TimeExceeded("", "wall_time")

    async def _step(self, run: _Run) -> None:
        self._check_limits(run)
        messages = [{"role": m["role"], "content": m["content"]} for m in run.messages]
        response = await run.model.complete(messages, **self.config.model_params)
        run.n_calls += 1
        run.add("assistant", response.text, finish_reason=response.finish_reason,
                usage=response.usage.to_dict())
        action = self._parse(run, response.text, response.finish_reason)
        await self._execute(run, action)

    def _parse(self, run: _Run, text: str, finish_reason: str) -> str:
        actions = parts.parse_actions(text, self.config.action_regex)
        if len(actions) == 1:
            run.consecutive_format_errors = 0
            return actions[0]
        run.n_format_errors += 1
        run.consecutive_format_errors += 1
        message = self.templates.render("format_error_template", **self._vars(
            run, actions=actions, n_actions=len(actions), finish_reason=finish_reason))
        limit = self.config.max_consecutive_format_errors
        if 0 < limit <= run.consecutive_format_errors:
            raise parts.RepeatedFormatError(message)
        raise parts.FormatError(message)

    async def _execute(self, run: _Run, action: str) -> None:
        c = self.config
        command = f"exec 2>&1\n{action}" if c.merge_stderr else action
        env_vars = {**run.task.env, **c.env}
        result = await run.env.exec(command, timeout=c.command_timeout_s, cwd=run.env.workdir, env=env_vars)
        output = result.output
        if result.timed_out:
            raise parts.ExecutionTimeoutError(self.templates.render("timeout_template", **self._vars(
                run, action=action, output=output, timeout_s=c.command_timeout_s)))
        submission = parts.submission_of(output, result.exit_code, c)
        if submission is not None:
            raise parts.Submitted(submission)
        observation = self.templates.render("action_observation_template", **self._vars(
            run, returncode=result.exit_code, **parts.split_output(output, c)))
        run.add("user", observation, returncode=result.exit_code, duration_s=round(result.duration_s, 3))
