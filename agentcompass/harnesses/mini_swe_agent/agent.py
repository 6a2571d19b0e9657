"""The ``mini_swe_agent`` harness: the installed mini-swe-agent package's ``DefaultAgent`` on one of its config
files, its model backed by the attempt's :class:`ModelClient` and its environment by the attempt's
:class:`Environment`.

One attempt is what the package's SWE-bench runner (``process_instance``) does for one instance: optional
``run.env_startup_command``, ``agent.run(task)``, then ``agent.save(<instance_id>.traj.json, {info:
{exit_status, submission, ...}, instance_id})``. The agent also saves that file after every step
(``agent.output_path``), as the package does. Its exit becomes the :class:`AgentResult`: ``Submitted`` ->
``submitted`` with the submission text; ``LimitsExceeded`` / ``TimeExceeded`` / ``RepeatedFormatError``
end the run without an error (the attempt is graded); an exception ends the attempt with an error.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from pathlib import Path
from typing import Any, ClassVar

from agentcompass.errors import AgentCompassError, AgentError, ConfigError
from agentcompass.interfaces import AgentResult, AttemptContext, ComponentContext, Environment, ModelClient, Task
from agentcompass.kit import slug

from . import package
from .bridge import Cancelled, LoopBridge, run_in_thread
from .config import MiniSweAgentConfig
from .environment import environment_class
from .model import TextbasedModel, ToolcallModel
from .settings import Settings, resolve

log = logging.getLogger("agentcompass.harnesses.mini_swe_agent")
_WARNED: set[str] = set()  # model ids whose missing prices were reported
EXIT_STATUS = {
    "Submitted": "submitted",
    "LimitsExceeded": "limits_exceeded",
    "TimeExceeded": "limits_exceeded",
    "RepeatedFormatError": "repeated_format_error",
}


def trajectory_name(task_id: str) -> str:
    return slug(task_id, sep="__", default="") + ".traj.json"


class MiniSweAgentHarness:
    """Implements :class:`agentcompass.interfaces.Harness` by running mini-swe-agent itself."""

    id = "mini_swe_agent"
    requires_model: ClassVar[bool] = True
    config_class = MiniSweAgentConfig

    def __init__(self, config: MiniSweAgentConfig, ctx: ComponentContext | None = None) -> None:
        self.config, self.ctx = config, ctx
        package.load(ctx.data_dir if ctx is not None else None)
        self.settings: Settings = resolve(config)

    async def run(self, task: Task, env: Environment, model: ModelClient | None, ctx: AttemptContext) -> AgentResult:
        if model is None:
            raise AgentError("harness mini_swe_agent needs a model (got model 'none')")
        bridge = LoopBridge(asyncio.get_running_loop())
        attempt = _Attempt(self.settings, task, env, model, bridge, Path(ctx.attempt_dir) / trajectory_name(task.id))
        try:
            await run_in_thread(attempt.run, bridge, name=f"mini-swe-agent:{task.id}")
        except asyncio.CancelledError:
            ctx.logger.debug("mini_swe_agent %s: cancelled; trajectory %s", task.id, attempt.path)
            raise
        if attempt.error is not None:
            if isinstance(attempt.error, AgentCompassError):
                raise attempt.error
            raise AgentError(
                f"mini-swe-agent stopped with {type(attempt.error).__name__}: {attempt.error}"
            ) from attempt.error
        return attempt.result(model)


class _Attempt:
    """The synchronous part, run in the agent's thread."""

    def __init__(
        self, settings: Settings, task: Task, env: Environment, model: ModelClient, bridge: LoopBridge, path: Path
    ) -> None:
        self.settings, self.task, self.env, self.client, self.bridge, self.path = (
            settings,
            task,
            env,
            model,
            bridge,
            path,
        )
        self.agent: Any = None
        self.exit_status: str | None = None
        self.submission: str | None = None
        self.error: BaseException | None = None

    def _build(self) -> tuple[Any, Any]:
        s = self.settings
        model_cls = TextbasedModel if s.model_class == "litellm_textbased" else ToolcallModel
        model = model_cls(self.client, self.bridge, **s.model_section(self.client.model_id))
        _, env_section = s.environment_section(self.task.workdir, self.task.env)
        env = environment_class()(self.env, self.bridge, **env_section)
        return model, env

    def run(self) -> None:
        """``process_instance`` of the package's SWE-bench runner, for one task."""
        from minisweagent.agents.default import DefaultAgent

        extra_info: dict[str, str] = {}
        try:
            model, env = self._build()
            self._startup(env)
            agent_cfg = {k: v for k, v in self.settings.agent.items() if k != "agent_class"}
            self.agent = DefaultAgent(model, env, **{**agent_cfg, "output_path": self.path})
            info = self.agent.run(self.task.instruction)
            self.exit_status, self.submission = info.get("exit_status"), info.get("submission")
        except Exception as e:
            self.exit_status, self.submission = type(e).__name__, ""
            extra_info = {"traceback": traceback.format_exc(), "exception_str": str(e)}
            self.error = e
        finally:
            if self.agent is not None:
                self.agent.save(
                    self.path,
                    {
                        "info": {"exit_status": self.exit_status, "submission": self.submission, **extra_info},
                        "instance_id": self.task.id,
                    },
                )
        if isinstance(self.error, Cancelled):
            raise self.error

    def _startup(self, env: Any) -> None:
        command = self.settings.run.get("env_startup_command")
        if not command:
            return
        from jinja2 import StrictUndefined, Template

        instance = (
            self.task.data
            if isinstance(self.task.data, dict)
            else {"instance_id": self.task.id, "problem_statement": self.task.instruction}
        )
        try:
            rendered = Template(command, undefined=StrictUndefined).render(**instance)
        except Exception as exc:
            raise ConfigError(f"harness mini_swe_agent: run.env_startup_command: {exc}") from None
        out = env.execute({"command": rendered})
        if out["returncode"] != 0:
            raise RuntimeError(f"Error executing startup command: {out}")

    def result(self, client: ModelClient) -> AgentResult:
        agent = self.agent
        status = self.exit_status or ""
        limit = None
        if status == "LimitsExceeded":
            step_limit = agent.config.step_limit
            limit = "step_limit" if 0 < step_limit <= agent.n_calls else "cost_limit"
        elif status == "TimeExceeded":
            limit = "wall_time"
        n_format = sum(1 for m in agent.messages if m.get("extra", {}).get("interrupt_type") == "FormatError")
        if 0 < agent.config.cost_limit and agent.n_calls and not agent.cost and client.model_id not in _WARNED:
            _WARNED.add(client.model_id)
            log.warning(
                "mini_swe_agent %s: cost_limit %s never applied: the model's calls cost 0 (set the "
                "model's prices to account for cost)",
                self.task.id,
                agent.config.cost_limit,
            )
        return AgentResult(
            exit_status=EXIT_STATUS.get(status, "completed"),
            submission=self.submission or "",
            n_turns=agent.n_calls,
            usage=client.usage,
            trajectory_path=str(self.path),
            limit_hit=limit,
            n_format_errors=n_format,
            info={
                "model_name": client.model_id,
                "mini_exit_status": status,
                "mini_version": package.VERSION,
                "mini_config": self.settings.name,
                "mini_model_class": self.settings.model_class,
                "mini_environment_class": self.settings.environment.get("environment_class"),
                "mini_cost": agent.cost,
            },
        )
