"""The ``terminus2`` harness: a JSON-speaking agent driving a tmux session (FORMATS.md D4-D6).

Per episode: proactive summarization check, one model query, parse, send the keystrokes, read the new
terminal output. ``task_complete: true`` asks for confirmation; only two in a row end the run. The
trajectory is saved after every turn and, whatever happens (cancellation by the agent timeout included),
once more in a ``finally``.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from agentcompass.errors import ConfigError, ContextLengthExceededError, ModelRetryableError, SandboxError
from agentcompass.harnesses.terminus2.config import DEFAULT_CONTEXT_LIMIT, Terminus2Config
from agentcompass.harnesses.terminus2.context import ContextManager, assistant, user
from agentcompass.harnesses.terminus2.parser import Command, ParseResult, parse_response
from agentcompass.harnesses.terminus2.prompts import render
from agentcompass.harnesses.terminus2.tmux import TmuxSession
from agentcompass.harnesses.terminus2.trajectory import Trajectory
from agentcompass.interfaces import (AgentResult, AttemptContext, ComponentContext, Environment, ModelClient,
                                     ModelResponse, Task, Usage)

TRAJECTORY_IN_ENV = "/logs/agent/trajectory.json"
TEARDOWN_TIMEOUT_S = 20.0


class _Done(Exception):
    """Ends the loop early with an exit status (tmux session gone)."""

    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


class Terminus2Harness:
    """Terminus-2: the model sees a terminal and answers with JSON keystroke batches."""

    id = "terminus2"
    requires_model: ClassVar[bool] = True
    config_class = Terminus2Config

    def __init__(self, config: Terminus2Config, ctx: ComponentContext | None = None) -> None:
        self.config = config
        self.ctx = ctx

    async def run(self, task: Task, env: Environment, model: ModelClient | None,
                  ctx: AttemptContext) -> AgentResult:
        if model is None:
            raise ConfigError("harness 'terminus2' needs a model; got model=none")
        auto = bool(ctx.auto_install_dependencies or (self.ctx and self.ctx.auto_install_dependencies))
        return await _Run(self.config, task, env, model, ctx, auto).run()


class _Run:
    """The state of one attempt."""

    def __init__(self, cfg: Terminus2Config, task: Task, env: Environment, model: ModelClient,
                 ctx: AttemptContext, auto_install: bool) -> None:
        self.cfg, self.task, self.env, self.model, self.ctx = cfg, task, env, model, ctx
        self.log = ctx.logger
        self.session = TmuxSession(env, cfg.session_name, workdir=task.workdir or env.workdir,
                                   width=cfg.pane_width, height=cfg.pane_height, history_limit=cfg.history_limit,
                                   max_output_bytes=cfg.max_output_bytes, auto_install=auto_install,
                                   image=task.image, logger=ctx.logger)
        self.traj = Trajectory(ctx.attempt_dir / "trajectory.json", getattr(model, "model_id", "unknown"),
                               {"harness": "terminus2", "config": cfg.model_dump()})
        limit = cfg.context_limit or getattr(model, "context_limit", None) or DEFAULT_CONTEXT_LIMIT
        self.values = {"instruction": task.instruction, "duration_cap": f"{cfg.duration_cap_s:g}",
                       "max_output_bytes": cfg.max_output_bytes, "summary": None}
        self.context = ContextManager(limit=int(limit), threshold=cfg.proactive_summarization_threshold,
                                      reactive_free=cfg.reactive_free_tokens, ask=self._complete,
                                      render=self._render, screen=self.session.visible_screen,
                                      instruction=task.instruction, first_prompt_values=self.values)
        self.chat: list[dict[str, Any]] = []
        self.prompt = self.first_prompt = ""
        self.pending = False
        self.usage = Usage()
        self.n_turns = self.n_format_errors = self.summarizations = 0
        self.status, self.limit_hit = "completed", None

    def _render(self, name: str, **values: Any) -> str:
        return render(name, self.cfg.templates_dir, **values)

    # ------------------------------------------------------------------ outer frame
    async def run(self) -> AgentResult:
        try:
            await self.session.start()
            self.first_prompt = self.prompt = self._render(
                "prompt.j2", **{**self.values, "screen": await self.session.initial_screen()})
            self.traj.user(self.prompt)
            self._save()
            await self._loop()
        except _Done as done:
            self.status = done.status
        except asyncio.CancelledError:
            self.status, self.limit_hit = "agent_timeout", "agent_timeout"
            raise
        finally:
            self._save()
            await self._teardown()
        return self._result()

    async def _loop(self) -> None:
        for _ in range(self.cfg.max_turns):
            if not await self.session.is_alive():
                raise _Done("tmux_died")
            self.n_turns += 1
            if await self._turn():
                return
        self.status, self.limit_hit = "limits_exceeded", "max_turns"

    def _save(self) -> None:
        self.traj.extra.update(n_episodes=self.n_turns, summarization_count=self.summarizations,
                               exit_status=self.status, limit_hit=self.limit_hit,
                               n_format_errors=self.n_format_errors)
        try:
            self.traj.save()
        except OSError as exc:
            self.log.warning("terminus2: cannot write %s: %s", self.traj.path, exc)

    async def _teardown(self) -> None:
        """Copy the trajectory into the environment and stop tmux; bounded, best effort."""
        stop = self.cfg.stop_session == "always" or (
            self.cfg.stop_session == "auto" and self.env.path("/") != "/")
        try:
            await asyncio.wait_for(self._teardown_steps(stop), TEARDOWN_TIMEOUT_S)
        except (Exception, asyncio.CancelledError) as exc:   # a second cancellation must not lose the result
            self.log.debug("terminus2: teardown incomplete: %s", exc)

    async def _teardown_steps(self, stop: bool) -> None:
        try:
            await self.env.write_file(TRAJECTORY_IN_ENV, self.traj.dumps())
        except Exception as exc:
            self.log.debug("terminus2: cannot copy the trajectory to %s: %s", TRAJECTORY_IN_ENV, exc)
        if stop:
            await self.session.stop()

    def _result(self) -> AgentResult:
        return AgentResult(exit_status=self.status, n_turns=self.n_turns, usage=self.usage,
                           trajectory_path=str(self.traj.path), limit_hit=self.limit_hit,
                           n_format_errors=self.n_format_errors,
                           info={"summarization_count": self.summarizations,
                                 "context_limit": self.context.limit})

    # ------------------------------------------------------------------ one episode
    async def _turn(self) -> bool:
        """One episode; True when the run is over (second consecutive task_complete)."""
        if self.cfg.enable_summarize and self.chat and self.context.needs_summary(self.chat, self.prompt):
            await self._summarize("proactive", self.chat)
        reply = await self._query()
        step = self.traj.agent_step(reply.text, reply.usage)
        try:
            done, observation = await self._handle(reply, step)
            Trajectory.set_observation(step, observation)
            self.prompt = observation
            return done
        finally:
            self._save()

    async def _handle(self, reply: ModelResponse, step: dict[str, Any]) -> tuple[bool, str]:
        if reply.finish_reason == "length":
            self.pending = False
            step["extra"] = {"error": "output length exceeded; nothing was run"}
            return False, self._render("output_length.j2")
        parsed = parse_response(reply.text, self.cfg.duration_cap_s)
        step["extra"] = {"analysis": parsed.analysis, "plan": parsed.plan, "warnings": parsed.warnings,
                         "error": parsed.error or None}
        if parsed.error:
            self.n_format_errors += 1
            self.pending = False
            return False, self._render("parse_error.j2", error=parsed.error, warnings=parsed.warnings)
        Trajectory.set_actions(step, parsed.commands, parsed.task_complete)
        output = await self._execute(parsed.commands)
        return self._next_prompt(parsed, output)

    def _next_prompt(self, parsed: ParseResult, output: str) -> tuple[bool, str]:
        if not parsed.task_complete:
            self.pending = False
            return False, self._render("observation.j2", warnings=parsed.warnings, output=output)
        if self.pending:
            return True, output
        self.pending = True
        return False, self._render("confirm.j2", warnings=parsed.warnings, output=output)

    async def _execute(self, commands: list[Command]) -> str:
        try:
            for command in commands:
                await self.session.send_keys(command.keystrokes)
                await asyncio.sleep(min(command.duration, self.cfg.duration_cap_s))
            return await self.session.incremental_output()
        except SandboxError:
            if not await self.session.is_alive():
                raise _Done("tmux_died") from None
            raise

    # ------------------------------------------------------------------ model
    async def _complete(self, messages: list[dict[str, Any]]) -> ModelResponse:
        """One model call; retryable errors that survive the model layer get ``model_query_attempts`` tries."""
        for attempt in range(1, self.cfg.model_query_attempts + 1):
            try:
                response = await self.model.complete(messages)
            except ModelRetryableError as exc:
                if attempt == self.cfg.model_query_attempts:
                    raise
                self.log.warning("terminus2: model query failed (%s), try %d of %d", exc, attempt + 1,
                                 self.cfg.model_query_attempts)
                await asyncio.sleep(min(2.0 ** attempt, 10.0))
                continue
            self.usage.add(response.usage)
            if not response.usage.n_calls:
                self.usage.n_calls += 1
            return response
        raise AssertionError("unreachable")

    async def _query(self) -> ModelResponse:
        try:
            response = await self._complete(self.chat + [user(self.prompt)])
        except ContextLengthExceededError:
            if not self.cfg.enable_summarize:
                raise
            self.log.info("terminus2: context length exceeded; summarizing")
            await self._summarize("reactive", self.context.unwind(self.chat))
            response = await self._complete(self.chat + [user(self.prompt)])
        self.chat += [user(self.prompt), assistant(response.text)]
        return response

    async def _summarize(self, trigger: str, chat: list[dict[str, Any]]) -> None:
        result = await self.context.summarize(chat, self.first_prompt)
        self.summarizations += 1
        self.chat, self.prompt = result.chat, result.prompt
        if self.pending:            # the confirmation question must survive the handoff
            self.prompt += "\n\n" + self._render("confirm_question.j2")
        self.traj.system(f"Context summarization ({trigger}, {result.mode}): the conversation was replaced "
                         "by a summary handoff.", usage=result.usage, trigger=trigger, mode=result.mode,
                         errors=result.errors or None, **result.texts)
        self._save()
