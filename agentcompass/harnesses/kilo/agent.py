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

import shlex
from collections.abc import Mapping
from pathlib import Path

from pydantic import Field

from agentcompass.harnesses._installed import delivery
from agentcompass.harnesses._installed.atif import AtifTrajectory
from agentcompass.harnesses._installed.config import InstalledAgentConfig, merged
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses._installed.runner import InstalledAgent, Run
from agentcompass.harnesses.opencode import trajectory
from agentcompass.harnesses.opencode.agent import OpenCodeConfig, gateway_settings, program_variables, write_settings

DEFAULT_VERSION = "7.7.7"
PROVIDER = "agentcompass"


class KiloConfig(InstalledAgentConfig):
    """``harness_params`` of ``kilo``."""

    OPTIONS = OpenCodeConfig.OPTIONS
    NO_TURN_LIMIT = "kilo run"
    version: str = Field(DEFAULT_VERSION, description="@kilocode/cli version (its native build).")
    kilo_config: dict[str, object] = Field(default_factory=dict, description="Merged over the generated kilo.json.")


class KiloHarness(InstalledAgent[KiloConfig], program="kilo", log="kilo.txt", sessions=("kilo",)):
    id = "kilo"

    def parts(self, plat: Platform) -> list[delivery.Part]:
        name = f"@kilocode/cli-{plat.os}-{plat.arch}" + ("" if plat.avx2 or plat.arch != "x64" else "-baseline")
        name += "-musl" if plat.libc == "musl" else ""
        return [delivery.npm_part(name, self.version, "about 240 MB", ("bin/kilo",))]

    def settings(self, run: Run) -> dict[str, object]:
        return merged(gateway_settings(run, self.config, "@ai-sdk/openai-compatible"), self.config.kilo_config)

    async def prepare(self, run: Run) -> None:
        await write_settings(run, self.home(run), "kilo", self.settings(run))

    def variables(self, run: Run) -> dict[str, str]:
        env = program_variables(run, "kilo")
        return {**env, "KILO_DISABLE_SESSION_INGEST": "1", "KILO_DISABLE_LSP_DOWNLOAD": "1"}

    def flags(self, run: Run) -> list[str]:
        out = [f"--model={PROVIDER}/{run.endpoint.model}", "--format=json", *self.config.option_args()]
        return [*out, "--thinking", "--auto", *self.config.extra_args]

    def command(self, run: Run) -> str:
        binary = shlex.quote(f"{run.part_dir()}/bin/kilo")
        rest = " ".join(shlex.quote(f) for f in self.flags(run))
        return f"{binary} run {rest} -- {shlex.quote(run.task.instruction)}"

    def trajectory(self, run: Run, agent_dir: Path) -> AtifTrajectory | None:
        out = trajectory.convert(agent_dir / self.NATIVE_LOG, run.task.instruction, self.version, run.endpoint.model)
        if out is not None:
            out["agent"]["name"] = self.AGENT_NAME
        return out

    def reported(self, agent_dir: Path) -> Mapping[str, object] | None:
        return trajectory.reported(agent_dir / self.NATIVE_LOG)
