"""The harness of a published agent program: deliver its build, point it at the gateway, run it, keep its log.

One attempt (:meth:`InstalledAgent.run`):

1. the environment's platform (:func:`.platform.probe`, once per image) picks the build; a build missing from the
   cache is fetched on the host (:mod:`.delivery`), where every environment sees it through the read-only mount;
2. the attempt's gateway endpoint (:mod:`.gateway`): base URL, per-attempt token, model name;
3. the agent's own files are written (settings, config), then its non-interactive command runs in the task's
   workdir, its output teed to ``/logs/agent/<native log>``, under the task's agent timeout less a margin (on
   timeout, cancellation or SIGTERM the environment kills the whole process tree);
4. the native log (and session files) are copied to ``<attempt dir>/agent/``, converted to ATIF
   (``<attempt dir>/trajectory.json``); usage and cost are the gateway's (the attempt's model client), the agent's
   own report is kept beside them in ``info.agent_reported``.

A non-zero exit of the agent is an :class:`AgentError` naming the exit code and the last line of its output (an
agent timeout is not: the attempt is verified as usual).
"""

from __future__ import annotations

import asyncio
import logging
import shlex
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Generic, TypedDict, TypeVar, get_args

from agentcompass.errors import AgentError, DependencyError
from agentcompass.interfaces import (
    ON_HOST,
    AgentResult,
    AttemptContext,
    ComponentContext,
    Environment,
    ModelClient,
    Mount,
    Task,
    Usage,
)
from agentcompass.kit import data_dir as _data_dir
from agentcompass.kit import write_json

from . import conversing, delivery, gateway
from .atif import AtifTrajectory
from .config import InstalledAgentConfig
from .platform import Platform, host, probe

C = TypeVar("C", bound=InstalledAgentConfig)
log = logging.getLogger("agentcompass.harnesses.installed")
LOGS = "/logs/agent"
FINISH_TIMEOUT_S = 30.0
TIMEOUT_MARGIN_S = 5.0  # the agent's command ends this much before the attempt's agent timeout


class HarnessListing(TypedDict):
    """What ``agentcompass list harnesses`` shows of an installed agent's harness (:meth:`InstalledAgent.listing`)."""

    version: str
    protocols: list[str]
    cached: bool | None
    model_params: dict[str, str]


@dataclass
class Run:
    """One attempt of an agent program: what the per-agent hooks read."""

    task: Task
    env: Environment
    ctx: AttemptContext
    platform: Platform
    endpoint: gateway.Endpoint
    parts: list[delivery.Part]
    workdir: str
    logs: str  # the environment path of /logs/agent, as commands see it
    files: dict[str, str] = field(default_factory=dict)  # name -> environment path of files written for the agent
    mcp: conversing.McpServer | None = None  # a tool-use benchmark's conversation (ctx.conversation) over MCP

    def part_dir(self, index: int = 0) -> str:
        """The environment path (as commands see it) of the ``index``-th build."""
        return self.env.path(self.parts[index].env_dir())


class InstalledAgent(Generic[C]):
    """Implements :class:`~agentcompass.interfaces.Harness` for one published agent program (subclassed as
    ``InstalledAgent[ItsConfig]``: that class is its ``config_class``, whose ``version`` default is the pinned one)."""

    id: str = ""
    requires_model: ClassVar[bool] = True
    converses: ClassVar[bool] = False  # True where the agent takes the conversation's MCP server (prepare, command)
    config_class: ClassVar[type[InstalledAgentConfig]] = InstalledAgentConfig
    AGENT_NAME: ClassVar[str] = ""  # the program's own name (ATIF agent.name)
    NATIVE_LOG: ClassVar[str] = "agent.txt"  # under /logs/agent
    SESSION_DIRS: ClassVar[tuple[str, ...]] = ()  # more folders under /logs/agent kept with the log
    PROTOCOLS: ClassVar[tuple[str, ...]] = ("openai-chat",)  # the model APIs the program speaks to the gateway

    def __init_subclass__(cls, program: str = "", log: str = "", sessions: tuple[str, ...] = (), **kw: Any) -> None:
        """A subclass names the program (``AGENT_NAME``), its log (``NATIVE_LOG``) and session files
        (``SESSION_DIRS``) in its class statement; its config class is the ``InstalledAgent[...]`` argument."""
        super().__init_subclass__(**kw)
        for base in getattr(cls, "__orig_bases__", ()):
            found = [a for a in get_args(base) if isinstance(a, type) and issubclass(a, InstalledAgentConfig)]
            cls.config_class = found[0] if found else cls.config_class
        cls.AGENT_NAME, cls.NATIVE_LOG = program or cls.AGENT_NAME, log or cls.NATIVE_LOG
        cls.SESSION_DIRS = sessions or cls.SESSION_DIRS

    def __init__(self, config: C, ctx: ComponentContext | None = None) -> None:
        self.config: C = config
        self.component_ctx = ctx
        self.version = config.version or str(type(config).model_fields["version"].default or "")
        self.data_dir = _data_dir(ctx)
        self.model_name = (ctx.model_id if ctx is not None else "") or ""
        self.auto_install = bool(config.auto_install or (ctx is not None and ctx.auto_install_dependencies))
        if ctx is not None and ctx.environment_id == "local" and not self.auto_install:
            self._check_host_builds()

    def _check_host_builds(self) -> None:
        """On the local environment the platform is this host's: a missing build is a configuration error before
        anything runs (elsewhere it is known only once the environment is open)."""
        plat = host()
        for part in self.parts(plat):
            if not delivery.is_cached(part, self.data_dir):
                raise DependencyError(delivery.missing_message(self.id, part, self.data_dir, plat.npm))

    # ------------------------------------------------------------------ capabilities
    def env_mounts(self, task: Task) -> list[Mount]:
        return [delivery.mount(self.data_dir)]

    def describe(self) -> dict[str, str]:
        return {"agent": self.AGENT_NAME, "version": self.version, "cache": str(delivery.cache_root(self.data_dir))}

    def listing(self) -> HarnessListing:
        """What ``agentcompass list harnesses`` shows: the pinned version, the protocols the program speaks,
        whether its build for this host's platform (as a docker image on it) is in the cache, and the
        ``model_params`` it takes (key -> what it becomes)."""
        try:
            cached: bool | None = all(delivery.is_cached(p, self.data_dir) for p in self.parts(host()))
        except Exception:  # no build for this platform
            cached = None
        params = {o.key: o.describe() for o in self.config_class.OPTIONS}
        return {"version": self.version, "protocols": list(self.PROTOCOLS), "cached": cached, "model_params": params}

    def home(self, run: Run) -> str:
        """The agent's home folder as an environment path: the attempt's on the host, the image's user's else."""
        return f"{LOGS}/home" if ON_HOST.of(run.env) else run.platform.home

    # ------------------------------------------------------------------ per-agent hooks
    def parts(self, plat: Platform) -> list[delivery.Part]:
        raise NotImplementedError

    async def prepare(self, run: Run) -> None:
        """Write the agent's settings files (``run.files``) before its command runs."""

    def command(self, run: Run) -> str:
        raise NotImplementedError

    def variables(self, run: Run) -> dict[str, str]:
        raise NotImplementedError

    async def finish(self, run: Run) -> None:
        """After the command (also after a timeout or an error): gather session files under /logs/agent."""

    def trajectory(self, run: Run, agent_dir: Path) -> AtifTrajectory | None:
        """The ATIF trajectory built from the native log saved in ``agent_dir`` (None: none could be built)."""
        return None

    def reported(self, agent_dir: Path) -> Mapping[str, object] | None:
        """The agent's own usage / cost report, when its log has one."""
        return None

    # ------------------------------------------------------------------ the attempt
    async def run(self, task: Task, env: Environment, model: ModelClient | None, ctx: AttemptContext) -> AgentResult:
        if model is None:
            raise AgentError(f"harness {self.id} needs a model (got model 'none')")
        start = time.monotonic()
        plat = await probe(env)
        parts = self.parts(plat)
        auto = self.auto_install or ctx.auto_install_dependencies
        await delivery.ensure(parts, self.data_dir, auto_install=auto, harness=self.id, platform=plat.npm)
        end = await gateway.endpoint(ctx, env, model.model_id or self.model_name)
        mcp, workdir = None, task.workdir or env.workdir
        if ctx.conversation is not None:  # a tool-use benchmark: the conversation is the task
            task, mcp = replace(task, instruction=await conversing.prompt(ctx.conversation)), end.mcp
            workdir = conversing.workdir(workdir)
        run = Run(task, env, ctx, plat, end, parts, env.path(workdir), env.path(LOGS), mcp=mcp)
        home = {"HOME": f"{run.logs}/home"} if ON_HOST.of(env) else {}  # on the host: not the user's own home
        await env.exec(["mkdir", "-p", run.logs, *home.values(), *([run.workdir] if mcp is not None else [])])
        await self.prepare(run)
        limit = ctx.time_limit_s
        timeout = max(1.0, limit - (time.monotonic() - start) - TIMEOUT_MARGIN_S) if limit else None
        variables = {**home, **self.variables(run), **self.config.env}
        native = shlex.quote(f"{run.logs}/{self.NATIVE_LOG}")
        script = f"set -o pipefail; {{ {self.command(run)} ; }} 2>&1 </dev/null | tee {native}"
        try:
            result = await env.exec(["bash", "-c", script], timeout=timeout, cwd=run.workdir, env=variables)
        finally:
            conversing.end(ctx.conversation)
            await self._finish(run)
            agent_dir = await self._save_logs(run)
        return self._result(run, result, model, agent_dir)

    async def _finish(self, run: Run) -> None:
        try:
            await asyncio.wait_for(asyncio.shield(self.finish(run)), FINISH_TIMEOUT_S)
        except Exception as exc:  # the environment may be gone (cancelled attempt)
            log.debug("%s: finishing failed: %s", self.id, exc)

    async def _save_logs(self, run: Run) -> Path:
        agent_dir = Path(run.ctx.attempt_dir) / "agent"
        agent_dir.mkdir(parents=True, exist_ok=True)
        for name in (self.NATIVE_LOG, *self.SESSION_DIRS):
            try:
                await run.env.download(f"{LOGS}/{name}", agent_dir / name)
            except FileNotFoundError:
                continue
            except Exception as exc:  # a log that cannot be copied must not hide the agent's outcome
                log.warning("%s: could not copy %s/%s: %s", self.id, LOGS, name, exc)
        return agent_dir

    def _result(self, run: Run, result: Any, model: ModelClient, agent_dir: Path) -> AgentResult:
        usage = Usage().add(model.usage)
        info: dict[str, Any] = {
            "agent": self.AGENT_NAME,
            "version": self.version,
            "platform": run.platform.describe(),
            "exit_code": result.exit_code,
            "native_log": str(agent_dir / self.NATIVE_LOG),
        }
        reported = self._safe(self.reported, agent_dir)
        if reported:
            info["agent_reported"] = reported
        trajectory = self._safe(self.trajectory, run, agent_dir)
        path = None
        if trajectory is not None:
            path = write_json(Path(run.ctx.attempt_dir) / "trajectory.json", trajectory, ensure_ascii=False)
        n_turns = sum(1 for s in (trajectory or {}).get("steps", []) if s.get("source") == "agent")
        if result.timed_out:
            return AgentResult("agent_timeout", None, n_turns, usage, path, "agent_timeout", info=info)
        if result.exit_code != 0:
            tail = next((ln for ln in reversed(result.output.strip().splitlines()) if ln.strip()), "")
            partial = AgentResult("error", None, n_turns, usage, path, info=info)  # kept if a limit stopped it
            raise AgentError(f"{self.AGENT_NAME} exited with code {result.exit_code}: {tail[:300]}", result=partial)
        return AgentResult("completed", None, n_turns, usage, path, info=info)

    def _safe(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except Exception as exc:  # a log the converter cannot read must not fail the attempt
            log.warning("%s: %s failed on the native log: %s", self.id, getattr(fn, "__name__", fn), exc)
            return None
