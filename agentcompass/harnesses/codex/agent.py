"""Codex CLI as Harbor 0.26 runs it (``harbor/agents/installed/codex.py``), on the model gateway.

Command: ``CODEX_API_KEY= codex exec --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check --model M
--json --enable unified_exec [-c model_reasoning_effort=E] [-c web_search=disabled] [extra_args] -- INSTRUCTION``,
teed to ``/logs/agent/codex.txt``. ``$CODEX_HOME`` holds Harbor's ``config.toml`` (``model_provider = "openai"``,
``openai_base_url`` = the gateway, ``web_search``) plus ``check_for_update_on_startup = false``, and ``auth.json``
naming ``OPENAI_API_KEY`` (the attempt's token); its ``sessions/`` are copied to ``/logs/agent/sessions``.

On a tool-use benchmark (``ctx.conversation``) ``config.toml`` also has ``[mcp_servers.agentcompass]`` with ``url``
(the conversation's MCP server: Codex's own streamable HTTP client), ``bearer_token_env_var =
"AGENTCOMPASS_MCP_TOKEN"`` (that variable holds the attempt's token) and ``tool_timeout_sec`` (the user's reply may
take a model call; Codex's default is 60 s).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TypedDict

from pydantic import Field

from agentcompass.harnesses._installed import delivery
from agentcompass.harnesses._installed.atif import AtifTrajectory
from agentcompass.harnesses._installed.config import InstalledAgentConfig
from agentcompass.harnesses._installed.options import AgentOption, toml
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses._installed.runner import InstalledAgent, Run

from . import trajectory

DEFAULT_VERSION = "0.171.0"
PACKAGE = "@openai/codex"
_TRIPLES = {
    "linux-x64": "x86_64-unknown-linux-musl",
    "linux-arm64": "aarch64-unknown-linux-musl",
    "darwin-x64": "x86_64-apple-darwin",
    "darwin-arm64": "aarch64-apple-darwin",
}
CODEX_HOME = "/tmp/agentcompass-codex-home"
MCP_TOKEN_VAR = "AGENTCOMPASS_MCP_TOKEN"
MCP_TOOL_TIMEOUT_S = 3600


class CodexConfig(InstalledAgentConfig):
    """``harness_params`` of ``codex``."""

    OPTIONS = (
        AgentOption(
            "reasoning_effort",
            setting="model_reasoning_effort",
            doc="none, minimal, low, medium, high, xhigh",
        ),
        AgentOption("reasoning_summary", setting="model_reasoning_summary", doc="auto, concise, detailed, none"),
        AgentOption("max_tokens", setting="model_max_output_tokens", text=lambda v: str(int(v))),
    )
    NO_TURN_LIMIT = "codex exec"
    version: str = Field(DEFAULT_VERSION, description="@openai/codex version (its native build).")


class CodexSettings(TypedDict, total=False):
    """The keys of Codex's ``config.toml`` this harness writes (the MCP table aside)."""

    model_provider: str
    openai_base_url: str
    web_search: str
    check_for_update_on_startup: bool


class CodexHarness(InstalledAgent[CodexConfig], program="codex", log="codex.txt", sessions=("sessions",)):
    id = "codex"
    converses = True
    PROTOCOLS = ("openai-responses",)

    def parts(self, plat: Platform) -> list[delivery.Part]:
        key = f"{plat.os}-{plat.arch}"  # one static (musl) build serves glibc and musl alike
        return [delivery.npm_part(PACKAGE, f"{self.version}-{key}", size="about 400 MB")]

    def _vendor(self, run: Run) -> str:
        return f"{run.part_dir()}/vendor/{_TRIPLES[f'{run.platform.os}-{run.platform.arch}']}"

    def _home(self, run: Run) -> str:
        return run.env.path(CODEX_HOME)

    def mcp_table(self, run: Run) -> str:
        """The ``[mcp_servers.<name>]`` table of the conversation's MCP server ('' without a conversation)."""
        if run.mcp is None:
            return ""
        timeout = int(run.ctx.time_limit_s or MCP_TOOL_TIMEOUT_S)
        return (
            f"\n[mcp_servers.{run.mcp.name}]\nurl = {toml(run.mcp.url)}\n"
            f'bearer_token_env_var = "{MCP_TOKEN_VAR}"\ntool_timeout_sec = {timeout}\n'
        )

    def settings(self, run: Run) -> CodexSettings:
        """Harbor's effective config.toml for a custom base URL, plus no update check."""
        config: CodexSettings = {"model_provider": "openai", "openai_base_url": run.endpoint.v1}
        if self.config.disable_web_search:
            config["web_search"] = "disabled"
        config["check_for_update_on_startup"] = False
        return config

    async def prepare(self, run: Run) -> None:
        home = CODEX_HOME
        text = "".join(f"{k} = {toml(v)}\n" for k, v in self.settings(run).items()) + self.mcp_table(run)
        await run.env.write_file(f"{home}/config.toml", text)
        await run.env.write_file(f"{home}/auth.json", json.dumps({"OPENAI_API_KEY": run.endpoint.token}), 0o600)

    def variables(self, run: Run) -> dict[str, str]:
        env = {
            "CODEX_HOME": self._home(run),
            "OPENAI_API_KEY": run.endpoint.token,
            "OPENAI_BASE_URL": run.endpoint.v1,
            "CODEX_MANAGED_BY_NPM": "1",  # what the npm package's launcher tells the binary
        }
        return {**env, MCP_TOKEN_VAR: run.mcp.token} if run.mcp is not None else env

    def flags(self, run: Run) -> list[str]:
        cfg = self.config
        out = ["--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "--model", run.endpoint.model]
        out += ["--json", "--enable", "unified_exec"]
        out += cfg.option_args("reasoning_effort", "reasoning_summary")
        if cfg.disable_web_search:
            out += ["-c", "web_search=disabled"]
        return out + cfg.option_args("max_tokens") + list(cfg.extra_args)

    def command(self, run: Run) -> str:
        vendor = self._vendor(run)
        binary, path = shlex.quote(f"{vendor}/bin/codex"), shlex.quote(f"{vendor}/codex-path")
        flags = " ".join(shlex.quote(f) for f in self.flags(run))
        return f'PATH={path}:"$PATH" CODEX_API_KEY= {binary} exec {flags} -- {shlex.quote(run.task.instruction)}'

    async def finish(self, run: Run) -> None:
        home, sessions = shlex.quote(self._home(run)), shlex.quote(f"{run.logs}/sessions")
        await run.env.exec(
            ["sh", "-c", f"if [ -d {home}/sessions ]; then rm -rf {sessions}; cp -R {home}/sessions {sessions}; fi"]
        )

    def trajectory(self, run: Run, agent_dir: Path) -> AtifTrajectory | None:
        return trajectory.convert(agent_dir / "sessions", run.task.instruction, self.version, run.endpoint.model)

    def reported(self, agent_dir: Path) -> Mapping[str, object] | None:
        return trajectory.reported(agent_dir / self.NATIVE_LOG)
