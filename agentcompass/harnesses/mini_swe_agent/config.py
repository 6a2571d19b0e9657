"""Parameters of the ``mini_swe_agent`` harness (``harness_params``): which mini-swe-agent config runs, and
what of it to change. The config file itself (prompts, limits, model kwargs) is mini-swe-agent's."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class MiniSweAgentConfig(BaseModel):
    """Runs the installed mini-swe-agent package's own agent on one of its config files."""

    model_config = ConfigDict(extra="forbid", protected_namespaces=())

    config: str = Field(
        "swebench",
        description=(
            "A config file shipped with mini-swe-agent (swebench: tool calls, the default; swebench_backticks: "
            "text mode, one ```mswea_bash_command block per reply; ...), or the path of a YAML file in the same "
            "format (agent / model / environment / run sections)."
        ),
    )
    model_class: Literal["litellm", "litellm_textbased"] | None = Field(
        None,
        description=(
            "How the model is driven, by mini-swe-agent's model class names: litellm = the bash tool (tool "
            "calls), litellm_textbased = actions parsed from the reply text. Default: the config's "
            "model.model_class, else litellm_textbased for the text-mode configs (swebench_backticks, "
            "mini_textbased), else litellm."
        ),
    )
    step_limit: int | None = Field(None, ge=0, description="Overrides agent.step_limit (model calls; 0 = none).")
    cost_limit: float | None = Field(
        None, ge=0, description=("Overrides agent.cost_limit (USD, from the model's prices; 0 = none).")
    )
    wall_time_limit_s: int | None = Field(
        None,
        ge=0,
        description=(
            "Overrides agent.wall_time_limit_seconds (checked before each model call; 0 = none). The task's agent "
            "timeout also applies: it cancels the agent at once."
        ),
    )
    command_timeout_s: int | None = Field(None, gt=0, description="Overrides environment.timeout (seconds).")
    cwd: str | None = Field(
        None,
        description=(
            "Directory commands run in. Default: the task's workdir (/testbed for SWE-bench, as the configs say); "
            "'config' uses the config's environment.cwd."
        ),
    )
    task_env: bool = Field(
        False,
        description=(
            "Also pass the benchmark's variables for agent commands (Task.env, e.g. SWE-bench's BASH_ENV) to every "
            "command, under the config's environment.env. Off by default: the published configs set their own."
        ),
    )
    model_kwargs: dict[str, object] = Field(
        default_factory=dict, description=("Merged over the config's model.model_kwargs (sent with every model call).")
    )
    agent: dict[str, object] = Field(default_factory=dict, description="Merged over the config's agent section.")
    model: dict[str, object] = Field(default_factory=dict, description="Merged over the config's model section.")
    environment: dict[str, object] = Field(
        default_factory=dict, description=("Merged over the config's environment section.")
    )
    run: dict[str, object] = Field(
        default_factory=dict, description=("Merged over the config's run section (env_startup_command).")
    )
