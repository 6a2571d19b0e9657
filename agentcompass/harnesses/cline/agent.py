"""The Cline CLI as Harbor 0.26 runs it (``harbor/agents/installed/cline/cline.py``), on the model gateway.

The npm package ``cline`` is a small Node launcher; the program is the native build it picks,
``@cline/cli-<os>-<arch>`` (a single executable with its runtime embedded), delivered alone: no Node is needed.
Harbor's setup command writes ``~/.cline/data/globalState.json`` (``welcomeViewCompleted``, ``isNewUser``); its run
command is ``cline -P PROVIDER -k "$API_KEY" -m "$MODELID" --json --yolo [--thinking E] -- INSTRUCTION`` with
``PROVIDER``, ``API_KEY``, ``MODELID``, ``CLINE_WRITE_PROMPT_ARTIFACTS=1`` and ``CLINE_PROMPT_ARTIFACT_DIR``, teed
to ``/logs/agent/cline.txt`` followed by a ``__CLINE_EXIT=<status>`` line; afterwards the newest session folder of
``~/.cline/data/sessions`` is copied to ``/logs/agent/sessions``.

Harbor gives Cline no base URL (its model goes to the provider's own service). To reach the gateway the provider is
``openai-compatible`` and ``~/.cline/data/settings/providers.json`` holds its ``baseUrl`` and model, the file
``cline auth -p openai -b URL`` writes, less the key (which comes from ``-k``, as in Harbor; an entry without
``updatedAt`` is ignored). ``CLINE_NO_AUTO_UPDATE=1`` turns its update check off.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict

from pydantic import Field

from agentcompass.errors import DependencyError
from agentcompass.harnesses._installed import delivery
from agentcompass.harnesses._installed.atif import AtifTrajectory
from agentcompass.harnesses._installed.config import InstalledAgentConfig
from agentcompass.harnesses._installed.options import AgentOption
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses._installed.runner import InstalledAgent, Run

from . import trajectory

DEFAULT_VERSION = "3.0.65"
PROVIDER = "openai-compatible"
THINKING = ("none", "low", "medium", "high", "xhigh")
GLOBAL_STATE = {"welcomeViewCompleted": True, "isNewUser": False}


class ClineConfig(InstalledAgentConfig):
    """``harness_params`` of ``cline``."""

    OPTIONS = (
        AgentOption("reasoning_effort", flag="--thinking", choices=THINKING),
        AgentOption("max_consecutive_mistakes", flag="--max-consecutive-mistakes", text=lambda v: str(int(v))),
    )
    NO_TURN_LIMIT = "the Cline CLI"
    version: str = Field(DEFAULT_VERSION, description="cline version (its native build @cline/cli-<os>-<arch>).")


class ProviderEntry(TypedDict):
    """One provider of Cline's ``providers.json`` (``providers.<id>``)."""

    settings: dict[str, str]
    updatedAt: str
    tokenSource: str


class ClineProviders(TypedDict):
    """Cline's ``~/.cline/data/settings/providers.json``."""

    version: int
    lastUsedProvider: str
    modes: dict[str, object]
    providers: dict[str, ProviderEntry]


class ClineHarness(InstalledAgent[ClineConfig], program="cline-cli", log="cline.txt", sessions=("sessions",)):
    id = "cline"

    def parts(self, plat: Platform) -> list[delivery.Part]:
        if plat.libc == "musl":
            raise DependencyError("the Cline CLI is published for glibc Linux only (no musl build of @cline/cli-*)")
        return [delivery.npm_part(f"@cline/cli-{plat.os}-{plat.arch}", self.version, "about 160 MB", ("bin/cline",))]

    def providers(self, run: Run) -> ClineProviders:
        """``~/.cline/data/settings/providers.json``: the gateway as Cline's ``openai-compatible`` provider."""
        settings = {"provider": PROVIDER, "model": run.endpoint.model, "baseUrl": run.endpoint.v1}
        updated = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        entry: ProviderEntry = {
            "settings": settings,
            "updatedAt": updated,
            "tokenSource": "manual",
        }  # without updatedAt: ignored
        return {"version": 1, "lastUsedProvider": PROVIDER, "modes": {}, "providers": {PROVIDER: entry}}

    async def prepare(self, run: Run) -> None:
        data = f"{self.home(run)}/.cline/data"
        await run.env.write_file(f"{data}/globalState.json", json.dumps(GLOBAL_STATE))
        await run.env.write_file(f"{data}/settings/providers.json", json.dumps(self.providers(run), indent=2))

    def variables(self, run: Run) -> dict[str, str]:
        return {
            "PROVIDER": PROVIDER,
            "API_KEY": run.endpoint.token,
            "MODELID": run.endpoint.model,
            "CLINE_WRITE_PROMPT_ARTIFACTS": "1",
            "CLINE_PROMPT_ARTIFACT_DIR": run.logs,
            "CLINE_NO_AUTO_UPDATE": "1",
        }

    def flags(self) -> list[str]:
        out = ["-P", PROVIDER, "-k", "$API_KEY", "-m", "$MODELID", "--json", "--yolo"]
        return [*out, *self.config.option_args(), *self.config.extra_args]

    def command(self, run: Run) -> str:
        binary = shlex.quote(f"{run.part_dir()}/bin/cline")
        args = " ".join(f'"{a}"' if a.startswith("$") else shlex.quote(a) for a in self.flags())
        instruction = shlex.quote(run.task.instruction.strip())
        return f'{binary} {args} -- {instruction}; status=$?; echo "__CLINE_EXIT=$status"; exit "$status"'

    async def finish(self, run: Run) -> None:
        sessions = shlex.quote(run.env.path(f"{self.home(run)}/.cline/data/sessions"))
        dest = shlex.quote(f"{run.logs}/sessions")
        script = (
            f"if [ -d {sessions} ]; then mkdir -p {dest}; latest=$(ls -1td {sessions}/*/ 2>/dev/null | head -n 1); "
            f'if [ -n "$latest" ]; then cp -r "$latest" {dest}/; fi; fi'
        )
        await run.env.exec(["sh", "-c", script])

    def trajectory(self, run: Run, agent_dir: Path) -> AtifTrajectory | None:
        return trajectory.convert(agent_dir / "sessions", self.version, run.endpoint.model)

    def reported(self, agent_dir: Path) -> Mapping[str, object] | None:
        return trajectory.reported(agent_dir / "sessions")
