"""aider as Harbor 0.26 runs it (``harbor/agents/installed/aider.py``), on the model gateway.

Two builds are delivered: CPython 3.11 from Debian bookworm with its own C library (:mod:`.._installed.python`;
aider-chat needs Python below 3.13) and aider-chat's wheel set installed for it (:mod:`.._installed.pyenv`), whose
``bin/aider`` launcher runs it. Command (Harbor's): the model settings file written from
``$AIDER_API_KEY_SETTINGS`` into a private ``mktemp`` file removed on exit, the workspace committed to a new git
repository when it is not one already (and git exists), then ``aider --yes
--chat-history-file=/logs/agent/aider.chat.history.md [flags] --model-settings-file="$settings_path"
--model=openai/MODEL --message=INSTRUCTION``, teed to ``/logs/agent/aider.txt``. Environment: ``OPENAI_API_KEY``
(the attempt's token), ``OPENAI_BASE_URL`` (the gateway's ``/v1``), ``AIDER_API_KEY_SETTINGS`` (``[{"name":
"aider/extra_params", "extra_params": {"api_base": <gateway /v1>}}]``); and, beyond Harbor's, the update check,
release notes and analytics off (``AIDER_CHECK_UPDATE``, ``AIDER_SHOW_RELEASE_NOTES``, ``AIDER_ANALYTICS_DISABLE``)
and LiteLLM's model-price download off (``LITELLM_LOCAL_MODEL_COST_MAP``): they need the internet.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TypedDict

from pydantic import Field

from agentcompass.harnesses._installed import delivery, pyenv, python
from agentcompass.harnesses._installed.atif import AtifTrajectory
from agentcompass.harnesses._installed.config import InstalledAgentConfig
from agentcompass.harnesses._installed.options import AgentOption
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses._installed.runner import InstalledAgent, Run

from . import trajectory

DEFAULT_VERSION = "0.86.2"
PROJECT = "aider-chat"
PYTHON = "3.11"
# a workspace that is no git repository yet is committed first, so aider's own commits show what it changed
SNAPSHOT = (
    "if command -v git >/dev/null 2>&1 && ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then "
    "{ git init -q && timeout 120 git add -A && git -c user.name=Agent -c user.email=agent@localhost "
    "commit -q --no-verify --allow-empty -m 'Task files before agent run'; } "
    "|| echo 'agent: could not snapshot the workspace for aider' >&2; fi; "
)
SETTINGS = (
    "settings_path=$(mktemp /tmp/aider-model-settings.XXXXXX) || exit $?; "
    "trap 'rm -f \"$settings_path\"' EXIT; "
    'printf \'%s\' "$AIDER_API_KEY_SETTINGS" > "$settings_path" || exit $?; '
)


class AiderConfig(InstalledAgentConfig):
    """``harness_params`` of ``aider``."""

    # Harbor's AiderOptions: aider's flags, in the order given (true / false: the flag or its --no- form)
    OPTIONS = tuple(
        AgentOption(key, flag="--" + key.replace("_", "-"), switch=True)
        for key in ("reasoning_effort", "thinking_tokens", "cache_prompts", "stream", "map_tokens")
    )
    NO_TURN_LIMIT = "aider --message"
    version: str = Field(DEFAULT_VERSION, description="aider-chat version.")


class AiderModelSettings(TypedDict):
    """An entry of aider's ``--model-settings-file`` (a list of them)."""

    name: str
    extra_params: dict[str, str]


class AiderHarness(InstalledAgent[AiderConfig], program="aider", log="aider.txt", sessions=("aider.chat.history.md",)):
    id = "aider"

    def parts(self, plat: Platform) -> list[delivery.Part]:
        rt = python.runtime(PYTHON)
        return [python.part(rt, plat), pyenv.part(PROJECT, self.version, rt, plat, ("aider",), size="about 660 MB")]

    def flags(self) -> list[str]:
        """One ``flag value`` (or bare flag) a given model_params key, in the order given."""
        return [" ".join(shlex.quote(a) for a in self.config.option_args(k)) for k in self.config.model_params]

    @staticmethod
    def model(name: str) -> str:
        """LiteLLM's name of the gateway's model: the OpenAI-compatible provider."""
        return f"openai/{name}"

    def settings(self, run: Run) -> list[AiderModelSettings]:
        return [{"name": "aider/extra_params", "extra_params": {"api_base": run.endpoint.v1}}]

    def variables(self, run: Run) -> dict[str, str]:
        return {
            "OPENAI_BASE_URL": run.endpoint.v1,
            "OPENAI_API_KEY": run.endpoint.token,
            "AIDER_API_KEY_SETTINGS": json.dumps(self.settings(run)),
            "AIDER_CHECK_UPDATE": "false",
            "AIDER_SHOW_RELEASE_NOTES": "false",
            "AIDER_ANALYTICS_DISABLE": "true",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }

    def command(self, run: Run) -> str:
        bin_dir = run.env.path(pyenv.bin_dir(run.parts[1]))
        extra = " ".join([*self.flags(), *(shlex.quote(a) for a in self.config.extra_args)])
        return (
            f'{SETTINGS}{SNAPSHOT}PATH={shlex.quote(bin_dir)}:"$PATH" aider --yes '
            f"--chat-history-file={run.logs}/aider.chat.history.md {extra + ' ' if extra else ''}"
            f'--model-settings-file="$settings_path" --model={shlex.quote(self.model(run.endpoint.model))} '
            f"--message={shlex.quote(run.task.instruction)}"
        )

    def trajectory(self, run: Run, agent_dir: Path) -> AtifTrajectory | None:
        history = agent_dir / "aider.chat.history.md"
        return trajectory.convert(history, run.task.instruction, self.version, run.endpoint.model)
