"""opencode as Harbor 0.26 runs it (``harbor/agents/installed/opencode.py``), on the model gateway.

Command: ``opencode --model=agentcompass/M run --format=json --thinking --dangerously-skip-permissions [--variant
E] [extra_args] -- INSTRUCTION``, teed to ``/logs/agent/opencode.txt``, with Harbor's ``OPENCODE_FAKE_VCS=git``,
``XDG_DATA_HOME`` / ``XDG_STATE_HOME`` under ``/logs/agent/opencode``. ``~/.config/opencode/opencode.json``
registers the gateway as a provider (``agentcompass``, opencode's bundled ``@ai-sdk/openai-compatible``: OpenAI Chat
Completions) with the model, turns auto-update and sharing off and (``disable_web_search``) denies ``websearch`` /
``webfetch``; ``OPENCODE_DISABLE_MODELS_FETCH`` and ``OPENCODE_DISABLE_AUTOUPDATE`` keep it off the internet.

On a tool-use benchmark (``ctx.conversation``) ``opencode.json`` also has ``mcp.agentcompass``: ``{"type": "remote",
"url": <the conversation's MCP server>, "headers": {"Authorization": "Bearer {env:AGENTCOMPASS_GATEWAY_TOKEN}"},
"oauth": false, "enabled": true}``.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import NotRequired, TypedDict

from pydantic import Field, model_validator

from agentcompass.harnesses._installed import delivery
from agentcompass.harnesses._installed.atif import AtifTrajectory
from agentcompass.harnesses._installed.config import InstalledAgentConfig, merged
from agentcompass.harnesses._installed.options import AgentOption
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses._installed.runner import InstalledAgent, Run

from . import trajectory

DEFAULT_VERSION = "1.18.18"
PROVIDER = "agentcompass"


class OpenCodeConfig(InstalledAgentConfig):
    """``harness_params`` of ``opencode``."""

    OPTIONS = (
        AgentOption("reasoning_effort", flag="--variant", doc="the reasoning-effort variant of the model"),
        AgentOption("max_tokens", sets="limit.output", doc="the model's output limit in the provider registration"),
    )
    NO_TURN_LIMIT = "opencode run"
    version: str = Field(DEFAULT_VERSION, description="opencode-ai version (its native build).")
    api: str = Field(
        "openai-chat", description="The API opencode speaks to the gateway: openai-chat or anthropic-messages."
    )
    opencode_config: dict[str, object] = Field(
        default_factory=dict, description="Merged over the generated opencode.json."
    )

    @model_validator(mode="after")
    def _check(self) -> OpenCodeConfig:
        if self.api not in ("openai-chat", "anthropic-messages"):
            raise ValueError(f"api={self.api!r}; allowed: openai-chat, anthropic-messages")
        return self


class ModelEntry(TypedDict):
    """A model of an opencode/Kilo provider registration (``provider.<id>.models.<model>``)."""

    name: str
    limit: NotRequired[dict[str, int]]


class ProviderSettings(TypedDict):
    """The gateway as an opencode/Kilo provider (``provider.<id>`` of ``opencode.json``)."""

    npm: str
    name: str
    options: dict[str, str]
    models: dict[str, ModelEntry]


class OpenCodeSettings(TypedDict):
    """The settings opencode and Kilo share (``opencode.json`` / ``kilo.json``), as written before user overrides."""

    autoupdate: bool
    share: str
    model: str
    provider: dict[str, ProviderSettings]
    permission: NotRequired[dict[str, str]]


def gateway_settings(run: Run, cfg: InstalledAgentConfig, npm: str) -> OpenCodeSettings:
    """The settings opencode and Kilo share: no auto-update or sharing, the gateway as provider ``agentcompass``
    (the AI SDK package ``npm``) with the model, and (``disable_web_search``) no web search or fetch."""
    model = run.endpoint.model
    entry: ModelEntry = {"name": model}
    if "max_tokens" in cfg.model_params:
        entry["limit"] = {"output": int(cfg.model_params["max_tokens"]), "context": 1_000_000}
    provider: ProviderSettings = {
        "npm": npm,
        "name": "agentcompass gateway",
        "options": {"baseURL": run.endpoint.v1, "apiKey": "{env:AGENTCOMPASS_GATEWAY_TOKEN}"},
        "models": {model: entry},
    }
    config: OpenCodeSettings = {
        "autoupdate": False,
        "share": "disabled",
        "model": f"{PROVIDER}/{model}",
        "provider": {PROVIDER: provider},
    }
    if cfg.disable_web_search:
        config["permission"] = {"websearch": "deny", "webfetch": "deny"}
    return config


async def write_settings(run: Run, home: str, name: str, settings: Mapping[str, object]) -> None:
    """``<home>/.config/<name>/<name>.json``: the settings of opencode (or of Kilo, ``name`` ``kilo``)."""
    await run.env.write_file(f"{home}/.config/{name}/{name}.json", json.dumps(settings, indent=2))


def program_variables(run: Run, name: str) -> dict[str, str]:
    """The environment opencode (or Kilo, ``name`` ``kilo``: its variables under its own prefix) runs in."""
    prefix = name.upper()
    return {
        "AGENTCOMPASS_GATEWAY_TOKEN": run.endpoint.token,
        f"{prefix}_FAKE_VCS": "git",
        "XDG_DATA_HOME": f"{run.logs}/{name}/xdg-data",
        "XDG_STATE_HOME": f"{run.logs}/{name}/xdg-state",
        f"{prefix}_DISABLE_MODELS_FETCH": "1",
        f"{prefix}_DISABLE_AUTOUPDATE": "1",
    }


class OpenCodeHarness(InstalledAgent[OpenCodeConfig], program="opencode", log="opencode.txt", sessions=("opencode",)):
    id = "opencode"
    converses = True
    PROTOCOLS = ("openai-chat", "anthropic-messages")

    def parts(self, plat: Platform) -> list[delivery.Part]:
        name = f"opencode-{plat.os}-{plat.arch}" + ("" if plat.avx2 or plat.arch != "x64" else "-baseline")
        name += "-musl" if plat.libc == "musl" else ""
        return [delivery.npm_part(name, self.version, size="about 170 MB")]

    def settings(self, run: Run) -> dict[str, object]:
        cfg = self.config
        npm = "@ai-sdk/anthropic" if cfg.api == "anthropic-messages" else "@ai-sdk/openai-compatible"
        config = {"$schema": "https://opencode.ai/config.json", **gateway_settings(run, cfg, npm)}
        if run.mcp is not None:
            auth = {"Authorization": "Bearer {env:AGENTCOMPASS_GATEWAY_TOKEN}"}  # the same token as the gateway's
            server = {"type": "remote", "url": run.mcp.url, "headers": auth, "oauth": False, "enabled": True}
            config["mcp"] = {run.mcp.name: server}
        return merged(config, cfg.opencode_config)

    async def prepare(self, run: Run) -> None:
        await write_settings(run, self.home(run), "opencode", self.settings(run))

    def variables(self, run: Run) -> dict[str, str]:
        return program_variables(run, "opencode")

    def command(self, run: Run) -> str:
        binary = shlex.quote(f"{run.part_dir()}/bin/opencode")
        flags = ["--format=json", *self.config.option_args()]
        flags += ["--thinking", "--dangerously-skip-permissions", *self.config.extra_args]
        model = shlex.quote(f"--model={PROVIDER}/{run.endpoint.model}")
        rest = " ".join(shlex.quote(f) for f in flags)
        return f"{binary} {model} run {rest} -- {shlex.quote(run.task.instruction)}"

    def trajectory(self, run: Run, agent_dir: Path) -> AtifTrajectory | None:
        return trajectory.convert(agent_dir / self.NATIVE_LOG, run.task.instruction, self.version, run.endpoint.model)

    def reported(self, agent_dir: Path) -> Mapping[str, object] | None:
        return trajectory.reported(agent_dir / self.NATIVE_LOG)
