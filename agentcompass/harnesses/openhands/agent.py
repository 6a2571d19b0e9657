"""OpenHands as Harbor 0.26 runs its Software Agent SDK (``harbor/agents/installed/openhands_sdk.py``), on the
model gateway.

Three builds are delivered: CPython 3.13 from Debian trixie with its own C library (:mod:`.._installed.python`;
the SDK needs Python 3.12 or later, and Debian's is 3.13), the wheel set ``openhands-sdk``, ``openhands-tools`` and
``fastapi`` (:mod:`.._installed.pyenv`), and Harbor's runner script, taken from the ``harbor`` wheel on PyPI (its
``harbor/agents/installed/openhands_sdk_runner.py``, unchanged). As Harbor does, the instruction is written to
``/installed-agent/instruction.txt`` and the runner to ``/installed-agent/run_agent.py``; the command is
``python /installed-agent/run_agent.py --instruction-file=/installed-agent/instruction.txt
--logs-dir="$AGENT_LOGS_DIR" --trajectory-path="$TRAJECTORY_PATH"``, teed to ``/logs/agent/openhands_sdk.txt``, with
``LLM_API_KEY`` (the attempt's token), ``LLM_BASE_URL`` (the gateway's ``/v1``), ``LLM_MODEL`` (``openai/MODEL``),
``AGENT_LOGS_DIR``, ``TRAJECTORY_PATH``, ``LOAD_SKILLS``, ``SKILL_PATHS``, ``LLM_CONFIG`` (``{"api_mode": "chat"}``:
the gateway's endpoint is OpenAI Chat Completions) and, from ``model_params``, ``LLM_REASONING_EFFORT`` and
``LLM_TEMPERATURE``; ``max_turns`` is ``MAX_ITERATIONS``. The runner writes the ATIF trajectory itself
(``/logs/agent/trajectory.json``). Beyond Harbor's: ``LITELLM_LOCAL_MODEL_COST_MAP=True`` (LiteLLM would download
its price list from the internet).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from pydantic import Field

from agentcompass.harnesses._installed import delivery, pyenv, python
from agentcompass.harnesses._installed.atif import AtifTrajectory
from agentcompass.harnesses._installed.config import InstalledAgentConfig
from agentcompass.harnesses._installed.options import AgentOption
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses._installed.runner import InstalledAgent, Run

DEFAULT_VERSION = "1.58.2"
HARBOR_VERSION = "0.26.0"
PYTHON = "3.13"
RUNNER = "openhands_sdk_runner.py"  # in the harbor wheel, under harbor/agents/installed/
REMOTE = "/installed-agent"
# Harbor's default skill folders (OpenHandsSDK.DEFAULT_SKILL_PATHS)
SKILL_PATHS = (
    "~/.openhands-sdk/skills", "~/.claude/skills", "~/.codex/skills", "~/.agents/skills", "~/.goose/skills",
    "~/.gemini/skills", "~/.factory/skills", "~/.opencode/skill",
)  # fmt: skip


class OpenHandsConfig(InstalledAgentConfig):
    """``harness_params`` of ``openhands``."""

    OPTIONS = (
        AgentOption("reasoning_effort", env="LLM_REASONING_EFFORT"),
        AgentOption("temperature", env="LLM_TEMPERATURE", text=json.dumps),
    )
    version: str = Field(DEFAULT_VERSION, description="openhands-sdk and openhands-tools version.")
    load_skills: bool = Field(True, description="LOAD_SKILLS: load skills from the skill folders.")


class OpenHandsHarness(
    InstalledAgent[OpenHandsConfig], program="openhands-sdk", log="openhands_sdk.txt", sessions=("trajectory.json",)
):
    id = "openhands"

    def parts(self, plat: Platform) -> list[delivery.Part]:
        rt = python.runtime(PYTHON)
        reqs = (f"openhands-tools=={self.version}", "fastapi")
        wheels = pyenv.part("openhands-sdk", self.version, rt, plat, (), reqs, size="about 520 MB")
        runner = delivery.Part(
            "pypi", "harbor", HARBOR_VERSION, f"pypi/harbor/{HARBOR_VERSION}", "any", "harbor/agents/installed/", "1 MB"
        )
        return [python.part(rt, plat), wheels, runner]

    def variables(self, run: Run) -> dict[str, str]:
        cfg = self.config
        env = {
            "LLM_API_KEY": run.endpoint.token,
            "LLM_BASE_URL": run.endpoint.v1,
            "LLM_MODEL": f"openai/{run.endpoint.model}",
            "AGENT_LOGS_DIR": run.logs,
            "TRAJECTORY_PATH": f"{run.logs}/trajectory.json",
            "LOAD_SKILLS": "1" if cfg.load_skills else "0",
            "SKILL_PATHS": ":".join(SKILL_PATHS),
        }
        env.update(cfg.option_variables("reasoning_effort"))
        env["LLM_CONFIG"] = json.dumps({"api_mode": "chat"})
        if cfg.max_turns is not None:
            env["MAX_ITERATIONS"] = str(cfg.max_turns)
        env.update(cfg.option_variables("temperature"))
        env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
        return env

    async def prepare(self, run: Run) -> None:
        runner = run.parts[2].host_dir(self.data_dir) / RUNNER
        await run.env.write_file(f"{REMOTE}/instruction.txt", run.task.instruction)
        await run.env.write_file(f"{REMOTE}/run_agent.py", runner.read_text())

    def command(self, run: Run) -> str:
        py = shlex.quote(run.env.path(pyenv.bin_dir(run.parts[1])) + "/python")
        script, instruction = (shlex.quote(run.env.path(f"{REMOTE}/{n}")) for n in ("run_agent.py", "instruction.txt"))
        extra = " ".join(shlex.quote(a) for a in self.config.extra_args)
        return (
            f"{py} {script} --instruction-file={instruction} "
            f'--logs-dir="$AGENT_LOGS_DIR" --trajectory-path="$TRAJECTORY_PATH" {extra}'
        ).rstrip()

    def trajectory(self, run: Run, agent_dir: Path) -> AtifTrajectory | None:
        path = agent_dir / "trajectory.json"
        return json.loads(path.read_text()) if path.is_file() else None
