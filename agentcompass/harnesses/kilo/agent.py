"""Kilo Code's CLI on the model gateway. Harbor 0.26 has no adapter for it; Kilo's CLI is built on opencode, so it
is run the way Harbor runs opencode (``harbor/agents/installed/opencode.py``), with Kilo's own names.

The npm package ``@kilocode/cli`` is a launcher; the program is the native build it picks,
``@kilocode/cli-<os>-<arch>[-baseline][-musl]`` (``-baseline`` on CPUs without AVX2, ``-musl`` on Alpine),
delivered alone. Command: ``kilo run --model=agentcompass/M --format=json [--variant E] --thinking --auto
[extra_args] -- INSTRUCTION`` (``--auto`` is Kilo's ``--dangerously-skip-permissions``), teed to
``/logs/agent/kilo.txt``, with ``KILO_FAKE_VCS=git`` and ``XDG_DATA_HOME`` / ``XDG_STATE_HOME`` under
``/logs/agent/kilo`` (opencode's settings under Kilo's names). ``~/.config/kilo/kilo.json`` registers the gateway as
a provider (``agentcompass``, the bundled ``@ai-sdk/openai-compatible``) with the model, turns auto-update and
sharing off and (``disable_web_search``) denies ``websearch`` / ``webfetch``; ``KILO_DISABLE_MODELS_FETCH``,
``KILO_DISABLE_AUTOUPDATE``, ``KILO_DISABLE_SESSION_INGEST`` and ``KILO_DISABLE_LSP_DOWNLOAD`` keep it off the
internet.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from pydantic import Field

from agentcompass.harnesses._installed import delivery
from agentcompass.harnesses._installed.config import InstalledAgentConfig, merged
from agentcompass.harnesses._installed.options import AgentOption
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses._installed.runner import InstalledAgent, Run
from agentcompass.harnesses.opencode import trajectory

DEFAULT_VERSION = "7.7.7"
PROVIDER = "agentcompass"


class KiloConfig(InstalledAgentConfig):
    """``harness_params`` of ``kilo``."""

    OPTIONS = (
        AgentOption("reasoning_effort", flag="--variant", doc="Kilo's reasoning-effort variant of the model"),
        AgentOption("max_tokens", sets="limit.output", doc="the model's output limit in the provider registration"),
    )
    NO_TURN_LIMIT = "kilo run"
    version: str = Field(DEFAULT_VERSION, description="@kilocode/cli version (its native build).")
    kilo_config: dict[str, Any] = Field(default_factory=dict, description="Merged over the generated kilo.json.")


class KiloHarness(InstalledAgent):
    id = "kilo"
    config_class = KiloConfig
    config: KiloConfig
    AGENT_NAME = "kilo"
    DEFAULT_VERSION = DEFAULT_VERSION
    NATIVE_LOG = "kilo.txt"
    SESSION_DIRS = ("kilo",)

    def parts(self, plat: Platform) -> list[delivery.Part]:
        name = f"@kilocode/cli-{plat.os}-{plat.arch}" + ("" if plat.avx2 or plat.arch != "x64" else "-baseline")
        name += "-musl" if plat.libc == "musl" else ""
        return [delivery.npm_part(name, self.version, "about 240 MB", ("bin/kilo",))]

    def settings(self, run: Run) -> dict[str, Any]:
        cfg, model = self.config, run.endpoint.model
        entry: dict[str, Any] = {"name": model}
        if "max_tokens" in cfg.model_params:
            entry["limit"] = {"output": int(cfg.model_params["max_tokens"]), "context": 1_000_000}
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "agentcompass gateway",
            "options": {"baseURL": run.endpoint.v1, "apiKey": "{env:AGENTCOMPASS_GATEWAY_TOKEN}"},
            "models": {model: entry},
        }
        config: dict[str, Any] = {
            "autoupdate": False,
            "share": "disabled",
            "model": f"{PROVIDER}/{model}",
            "provider": {PROVIDER: provider},
        }
        if cfg.disable_web_search:
            config["permission"] = {"websearch": "deny", "webfetch": "deny"}
        return merged(config, cfg.kilo_config)

    async def prepare(self, run: Run) -> None:
        text = json.dumps(self.settings(run), indent=2)
        await run.env.write_file(f"{self.home(run)}/.config/kilo/kilo.json", text)

    def variables(self, run: Run) -> dict[str, str]:
        return {
            "AGENTCOMPASS_GATEWAY_TOKEN": run.endpoint.token,
            "KILO_FAKE_VCS": "git",
            "XDG_DATA_HOME": f"{run.logs}/kilo/xdg-data",
            "XDG_STATE_HOME": f"{run.logs}/kilo/xdg-state",
            "KILO_DISABLE_MODELS_FETCH": "1",
            "KILO_DISABLE_AUTOUPDATE": "1",
            "KILO_DISABLE_SESSION_INGEST": "1",
            "KILO_DISABLE_LSP_DOWNLOAD": "1",
        }

    def flags(self, run: Run) -> list[str]:
        out = [f"--model={PROVIDER}/{run.endpoint.model}", "--format=json", *self.config.option_args()]
        return [*out, "--thinking", "--auto", *self.config.extra_args]

    def command(self, run: Run) -> str:
        binary = shlex.quote(f"{run.part_dir()}/bin/kilo")
        rest = " ".join(shlex.quote(f) for f in self.flags(run))
        return f"{binary} run {rest} -- {shlex.quote(run.task.instruction)}"

    def trajectory(self, run: Run, agent_dir: Path) -> dict[str, Any] | None:
        out = trajectory.convert(agent_dir / self.NATIVE_LOG, run.task.instruction, self.version, run.endpoint.model)
        if out is not None:
            out["agent"]["name"] = self.AGENT_NAME
        return out

    def reported(self, agent_dir: Path) -> dict[str, Any] | None:
        return trajectory.reported(agent_dir / self.NATIVE_LOG)
