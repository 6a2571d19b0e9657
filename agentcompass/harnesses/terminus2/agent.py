"""The ``terminus2`` harness: Harbor 0.26.0's Terminus-2 agent loop over a tmux session in the environment.

Per episode (Harbor's ``_run_agent_loop``): stop if the tmux session is gone; the proactive summarization check;
one query (with the output-length and context-length recovery of ``query``); Harbor's parser; on a parse
error nothing runs and the next prompt is Harbor's parse-error message (a pending completion stays pending);
otherwise every command's keystrokes are sent and waited for, and the new terminal output is read. A
``task_complete`` reply runs its commands and asks for confirmation; the next reply that completes again ends
the run; a valid reply that does not complete clears the pending flag. Every text sent is Harbor's own
(``harbor_text``), the parser is Harbor's own (``harbor_parser``), tokens are counted as Harbor counts them
(``tokens``). The trajectory is saved after every episode and, whatever happens, once more in a ``finally``.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from agentcompass.errors import ConfigError
from agentcompass.harnesses.terminus2.config import FALLBACK_CONTEXT_LIMIT, Terminus2Config
from agentcompass.harnesses.terminus2.context import ContextManager, Handoff
from agentcompass.harnesses.terminus2.harbor_parser import Parsed, ReplyParser
from agentcompass.harnesses.terminus2.harbor_source import load_source
from agentcompass.harnesses.terminus2.harbor_text import HarborPrompts
from agentcompass.harnesses.terminus2.query import Conversation
from agentcompass.harnesses.terminus2.tmux import TmuxSession, limit_output
from agentcompass.harnesses.terminus2.tokens import TokenCounter, load_litellm
from agentcompass.harnesses.terminus2.trajectory import Trajectory
from agentcompass.interfaces import (
    CONTEXT_LIMIT,
    ON_HOST,
    AgentResult,
    AttemptContext,
    ComponentContext,
    Environment,
    ModelClient,
    Task,
    Usage,
)

TRAJECTORY_IN_ENV = "/logs/agent/trajectory.json"
TEARDOWN_TIMEOUT_S = 20.0


def feedback_of(prompts: HarborPrompts, parsed: Parsed) -> str:
    """Harbor's feedback line for a parsed reply: ``ERROR: ...`` (and its warnings), or ``WARNINGS: ...``."""
    feedback = ""
    if parsed.error:
        feedback += prompts.text("feedback_error", **{"result.error": parsed.error})
        if parsed.warning:
            feedback += prompts.text("feedback_error_warnings", **{"result.warning": parsed.warning})
    elif parsed.warning:
        feedback += prompts.text("feedback_warnings", **{"result.warning": parsed.warning})
    return feedback


def _since(before: Usage, now: Usage) -> Usage:
    """The usage added to ``now`` since the copy ``before`` was taken."""
    return Usage(
        now.input_tokens - before.input_tokens,
        now.output_tokens - before.output_tokens,
        now.cached_tokens - before.cached_tokens,
        None if now.cost_usd is None or before.cost_usd is None else now.cost_usd - before.cost_usd,
        now.n_calls - before.n_calls,
        now.n_retries - before.n_retries,
    )


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
        self.config, self.ctx = config, ctx
        if ctx is not None and ctx.model_id == "none":  # the more basic mistake first
            raise ConfigError("harness 'terminus2' needs a model; got model 'none'")
        auto = ctx.auto_install_dependencies if ctx is not None else None
        self.source = load_source(config.templates_dir, ctx.data_dir if ctx is not None else None, bool(auto))
        self.prompts = HarborPrompts(self.source)
        self.parser = ReplyParser(self.source, config.duration_cap_s)
        load_litellm(auto)  # a missing extra fails now, before any environment opens

    def describe(self) -> dict[str, dict[str, object]]:
        """Which prompts and parser this harness uses (a hash of each of Harbor's files)."""
        return {"prompts": self.source.describe()}

    async def run(self, task: Task, env: Environment, model: ModelClient | None, ctx: AttemptContext) -> AgentResult:
        if model is None:
            raise ConfigError("harness 'terminus2' needs a model; got model=none")
        auto = bool(ctx.auto_install_dependencies or (self.ctx and self.ctx.auto_install_dependencies))
        return await _Run(self, task, env, model, ctx, auto).run()


class _Run:
    """The state of one attempt."""

    def __init__(
        self,
        h: Terminus2Harness,
        task: Task,
        env: Environment,
        model: ModelClient,
        ctx: AttemptContext,
        auto_install: bool,
    ) -> None:
        cfg = self.cfg = h.config
        self.task, self.env, self.prompts, self.parser, self.log = task, env, h.prompts, h.parser, ctx.logger
        self.session = TmuxSession(
            env,
            h.prompts,
            cfg.tmux_name,
            workdir=task.workdir or env.workdir,
            width=cfg.pane_width,
            height=cfg.pane_height,
            record=cfg.record_terminal,
            auto_install=auto_install,
            image=task.image,
            logger=ctx.logger,
            history_limit=cfg.history_limit,
            pane_log_bytes=cfg.pane_log_bytes,
        )
        model_id = model.model_id if model is not None else "unknown"
        tokens = TokenCounter(model_id, auto_install)
        self.limit = int(
            cfg.context_limit or CONTEXT_LIMIT.of(model) or tokens.context_limit() or FALLBACK_CONTEXT_LIMIT
        )
        output_limit = cfg.output_limit or tokens.output_limit()
        self.conv = Conversation(
            model,
            h.prompts,
            h.parser,
            attempts=cfg.model_query_attempts,
            enable_summarize=cfg.enable_summarize,
            output_limit=output_limit,
            logger=ctx.logger,
            on_handoff=self._on_handoff,
        )
        self.context = self.conv.context = ContextManager(
            h.prompts,
            limit=self.limit,
            threshold=cfg.proactive_summarization_threshold,
            reactive_free=cfg.reactive_target_free,
            count_tokens=tokens.count,
            ask=self.conv.ask,
            screen=self.session.capture,
            instruction=task.instruction,
        )
        self.traj = Trajectory(
            ctx.attempt_dir / "trajectory.json",
            model_id,
            {"harness": "terminus2", "parser": "json", "prompts": h.source.describe(), "config": cfg.model_dump()},
        )
        self.prompt = ""
        self.pending = False
        self.n_turns = self.n_format_errors = 0
        self.status, self.limit_hit = "completed", None

    def _limit(self, text: str) -> str:
        return limit_output(text, self.cfg.max_output_bytes, self.prompts)

    # ------------------------------------------------------------------ outer frame
    async def run(self) -> AgentResult:
        try:
            await self.session.start()
            await self.session.wait_ready()
            state = self._limit(await self.session.incremental_output())
            self.prompt = self.prompts.first_prompt(self.task.instruction, state)
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
        for episode in range(self.cfg.max_turns):
            self.n_turns = episode + 1
            if not await self.session.is_alive():
                raise _Done("tmux_died")
            if await self._episode(episode):
                return
        self.status, self.limit_hit = "limits_exceeded", "max_turns"

    def _save(self) -> None:
        self.traj.extra.update(
            n_episodes=self.n_turns,
            summarization_count=self.context.n_summaries,
            exit_status=self.status,
            limit_hit=self.limit_hit,
            n_format_errors=self.n_format_errors,
            context_limit=self.limit,
        )
        try:
            self.traj.save()
        except OSError as exc:
            self.log.warning("terminus2: cannot write %s: %s", self.traj.path, exc)

    async def _teardown(self) -> None:
        """Copy the trajectory into the environment and stop tmux; bounded, best effort."""
        stop = self.cfg.stop_tmux == "always" or (self.cfg.stop_tmux == "auto" and ON_HOST.of(self.env))
        try:
            await asyncio.wait_for(self._teardown_steps(stop), TEARDOWN_TIMEOUT_S)
        except (Exception, asyncio.CancelledError) as exc:
            self.log.debug("terminus2: teardown incomplete: %s", exc)

    async def _teardown_steps(self, stop: bool) -> None:
        try:
            await self.env.write_file(TRAJECTORY_IN_ENV, self.traj.dumps())
        except Exception as exc:
            self.log.debug("terminus2: cannot copy the trajectory to %s: %s", TRAJECTORY_IN_ENV, exc)
        await self.session.close_log()
        if stop:
            await self.session.stop()

    def _result(self) -> AgentResult:
        return AgentResult(
            exit_status=self.status,
            n_turns=self.n_turns,
            usage=self.conv.usage,
            trajectory_path=str(self.traj.path),
            limit_hit=self.limit_hit,
            n_format_errors=self.n_format_errors,
            info={
                "summarization_count": self.context.n_summaries,
                "context_limit": self.limit,
                "prompts": self.prompts.source.describe(),
            },
        )

    # ------------------------------------------------------------------ one episode
    async def _episode(self, episode: int) -> bool:
        """One episode; True when the run is over (a completion confirmed while one was pending)."""
        if self.task.instruction and self.cfg.enable_summarize and self.context.needs_summary(self.conv.messages):
            await self._proactive()
        before = Usage().add(self.conv.usage)
        text = await self.conv.query(self.prompt)
        parsed = self.parser.parse(text)
        feedback = feedback_of(self.prompts, parsed)
        used = _since(before, self.conv.usage)
        if feedback and "ERROR:" in feedback:
            self.n_format_errors += 1
            self.prompt = self.prompts.text(
                "parse_error",
                feedback=feedback,
                **{"self._get_error_response_type()": self.prompts.text("response_type")},
            )
            step = self.traj.agent_step(text, used, extra={"error": parsed.error, "warning": parsed.warning or None})
            Trajectory.set_observation(step, self.prompt)
            self._save()
            return False
        done = await self._act(episode, parsed, feedback, used)
        self._save()
        return done

    async def _act(self, episode: int, parsed: Parsed, feedback: str, used: Usage) -> bool:
        for command in parsed.commands:
            await self.session.send_keys([command.keystrokes], command.duration)
        output = self._limit(await self.session.incremental_output())
        was_pending = self.pending
        if parsed.task_complete:
            if self.pending:
                observation = output
            else:
                self.pending = True
                observation = self.prompts.text("confirm", terminal_output=output)
        else:
            self.pending = False
            if feedback and "WARNINGS:" in feedback:
                observation = self.prompts.text(
                    "warnings", feedback=feedback, **{"self._limit_output_length(terminal_output)": self._limit(output)}
                )
            else:
                observation = self._limit(output)
        message = "\n".join(
            part
            for part in (
                f"Analysis: {parsed.analysis}" if parsed.analysis else "",
                f"Plan: {parsed.plan}" if parsed.plan else "",
            )
            if part
        )
        step = self.traj.agent_step(message, used, extra={"warning": parsed.warning} if parsed.warning else None)
        Trajectory.set_actions(step, episode, parsed.commands, parsed.task_complete, observation)
        self.prompt = observation
        return parsed.task_complete and was_pending

    # ------------------------------------------------------------------ context
    async def _proactive(self) -> None:
        try:
            handoff = await self.context.summarize(self.conv.messages)
        except Exception as exc:
            self.log.error("terminus2: proactive summarization failed: %s: %s", type(exc).__name__, exc)
            return
        self.prompt = handoff.prompt
        self._on_handoff("proactive", handoff)

    def _on_handoff(self, trigger: str, handoff: Handoff) -> None:
        self.traj.system(
            f"Context summarization ({trigger}, {handoff.mode}); the conversation continues from the handoff below.",
            trigger=trigger,
            mode=handoff.mode,
            errors=handoff.errors or None,
            **handoff.texts,
        )
        self.traj.user(handoff.prompt)
        self._save()
