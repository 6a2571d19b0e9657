"""Claude Code as Harbor 0.26 runs it (``harbor/agents/installed/claude_code.py``), on the model gateway.

Command: the instruction on standard input of ``claude --verbose --output-format=stream-json
--permission-mode=bypassPermissions [--max-turns N] [--effort E] [--disallowedTools WebSearch,WebFetch]
[extra_args] --print``, teed to ``/logs/agent/claude-code.txt``. Environment: ``ANTHROPIC_BASE_URL`` (the gateway),
``ANTHROPIC_API_KEY`` (the attempt's token), ``ANTHROPIC_MODEL`` and the tier aliases Harbor pins for a custom
endpoint (``ANTHROPIC_DEFAULT_{SONNET,OPUS,HAIKU,FABLE}_MODEL``, ``CLAUDE_CODE_SUBAGENT_MODEL``),
``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`` (no telemetry, error reports or auto-update), ``IS_SANDBOX=1``
(``bypassPermissions`` as root), ``CLAUDE_CONFIG_DIR=/logs/agent/sessions``.

On a tool-use benchmark (``ctx.conversation``) the conversation's MCP server is added: ``/logs/agent/mcp.json``
(``{"mcpServers": {"agentcompass": {"type": "http", "url": ..., "headers": {"Authorization": "Bearer <token>"}}}}``)
through ``--mcp-config /logs/agent/mcp.json --strict-mcp-config --allowedTools mcp__agentcompass`` after Harbor's
flags, and ``ENABLE_TOOL_SEARCH=false`` (the server's tools are offered to the model directly, never deferred).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from pydantic import Field

from agentcompass.harnesses._installed import delivery
from agentcompass.harnesses._installed.atif import AtifTrajectory
from agentcompass.harnesses._installed.config import InstalledAgentConfig
from agentcompass.harnesses._installed.options import AgentOption
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses._installed.runner import LOGS, InstalledAgent, Run

from . import trajectory

DEFAULT_VERSION = "2.1.332"
PACKAGE = "@anthropic-ai/claude-code"
_ALIASES = (
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "ANTHROPIC_DEFAULT_FABLE_MODEL",
    "CLAUDE_CODE_SUBAGENT_MODEL",
)
_INSTRUCTION_VAR = "AGENTCOMPASS_CLAUDE_CODE_INSTRUCTION"


class ClaudeCodeConfig(InstalledAgentConfig):
    """``harness_params`` of ``claude_code``."""

    OPTIONS = (
        AgentOption("reasoning_effort", flag="--effort", doc="low, medium, high, xhigh, max"),
        AgentOption("max_tokens", env="CLAUDE_CODE_MAX_OUTPUT_TOKENS"),
        AgentOption("max_thinking_tokens", env="MAX_THINKING_TOKENS"),
    )
    version: str = Field(DEFAULT_VERSION, description="@anthropic-ai/claude-code version (its native build).")
    permission_mode: str = Field("bypassPermissions", description="--permission-mode (Harbor's default).")


class ClaudeCodeHarness(
    InstalledAgent[ClaudeCodeConfig], program="claude-code", log="claude-code.txt", sessions=("sessions",)
):
    id = "claude_code"
    converses = True
    PROTOCOLS = ("anthropic-messages",)

    def parts(self, plat: Platform) -> list[delivery.Part]:
        return [delivery.npm_part(f"{PACKAGE}-{plat.npm}", self.version, size="about 400 MB")]

    def variables(self, run: Run) -> dict[str, str]:
        model = run.endpoint.model
        env = {
            "ANTHROPIC_BASE_URL": run.endpoint.root,
            "ANTHROPIC_API_KEY": run.endpoint.token,
            "ANTHROPIC_MODEL": model,
            **dict.fromkeys(_ALIASES, model),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "IS_SANDBOX": "1",
            "CLAUDE_CONFIG_DIR": f"{run.logs}/sessions",
            _INSTRUCTION_VAR: run.task.instruction,
        }
        if run.mcp is not None:
            env["ENABLE_TOOL_SEARCH"] = "false"
        return {**env, **self.config.option_variables()}

    async def prepare(self, run: Run) -> None:
        sessions = f"{run.logs}/sessions"
        dirs = [f"{sessions}/{d}" for d in ("debug", "projects", "shell-snapshots", "statsig", "todos", "skills")]
        await run.env.exec(["mkdir", "-p", *dirs])
        if run.mcp is not None:
            server = {"type": "http", "url": run.mcp.url, "headers": {"Authorization": run.mcp.authorization}}
            run.files["mcp"] = f"{run.logs}/mcp.json"
            await run.env.write_file(f"{LOGS}/mcp.json", json.dumps({"mcpServers": {run.mcp.name: server}}), 0o600)

    def mcp_flags(self, run: Run) -> list[str]:
        """The conversation's MCP server (only that one), its tools allowed without asking."""
        if run.mcp is None:
            return []
        return ["--mcp-config", run.files["mcp"], "--strict-mcp-config", "--allowedTools", f"mcp__{run.mcp.name}"]

    def flags(self) -> list[str]:
        """Harbor's flags, in its order (the order of its options model)."""
        cfg, out = self.config, []
        if cfg.max_turns is not None:
            out += ["--max-turns", str(cfg.max_turns)]
        out += cfg.option_args()
        if cfg.disable_web_search:
            out += ["--disallowedTools", "WebSearch,WebFetch"]
        out.append(f"--permission-mode={cfg.permission_mode}")
        return out + list(cfg.extra_args)

    def command(self, run: Run) -> str:
        import shlex

        binary = shlex.quote(f"{run.part_dir()}/claude")
        flags = " ".join(shlex.quote(f) for f in [*self.flags(), *self.mcp_flags(run)])
        return (
            f'instruction="${_INSTRUCTION_VAR}"; unset {_INSTRUCTION_VAR}; '
            f'printf "%s" "$instruction" | {binary} --verbose --output-format=stream-json {flags} --print'
        )

    def trajectory(self, run: Run, agent_dir: Path) -> AtifTrajectory | None:
        return trajectory.convert(agent_dir / self.NATIVE_LOG, run.task.instruction, self.version, run.endpoint.model)

    def reported(self, agent_dir: Path) -> Mapping[str, object] | None:
        return trajectory.reported(agent_dir / self.NATIVE_LOG)
