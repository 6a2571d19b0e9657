"""Configuration of the ``mini_swe_agent`` harness (limits, execution, templates, action format)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SUBMIT_MARKER = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
DEFAULT_ENV = {"PAGER": "cat", "MANPAGER": "cat", "LESS": "-R", "PIP_PROGRESS_BAR": "off", "TQDM_DISABLE": "1"}


class MiniSweAgentConfig(BaseModel):
    """The text-mode mini-swe-agent loop: one bash block per reply, each run in a fresh subshell."""

    model_config = ConfigDict(extra="forbid")

    step_limit: int = Field(250, ge=0, description="Max model calls; 0 = unlimited.")
    cost_limit: float = Field(3.0, ge=0, description="Max model cost in USD for the attempt; 0 = unlimited.")
    wall_time_limit_s: float = Field(0.0, ge=0, description="Max wall time of the loop in seconds; 0 = unlimited.")
    command_timeout_s: float = Field(60.0, gt=0, description="Time limit of one command.")
    max_consecutive_format_errors: int = Field(3, ge=0, description="End the run after this many malformed "
                                               "replies in a row; 0 = never.")
    output_limit_chars: int = Field(10000, ge=1, description="Outputs of at least this many characters are shown "
                                    "as head + tail only.")
    output_head_chars: int = Field(5000, ge=0, description="Characters kept from the start of a long output.")
    output_tail_chars: int = Field(5000, ge=0, description="Characters kept from the end of a long output.")
    env: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_ENV),
                                description="Environment variables of every command (over the task's own "
                                "``Task.env``, e.g. SWE-bench's BASH_ENV that activates the conda env).")
    merge_stderr: bool = Field(True, description="Run commands with stderr redirected into stdout (in order).")
    template_dir: str | None = Field(None, description="Directory searched for template files before the "
                                     "built-in templates/mini_swe_agent/.")
    system_template: str = Field("system.j2", description="System message template (file name or path).")
    instance_template: str = Field("instance.j2", description="First user message; gets {{task}}.")
    format_error_template: str = Field("format_error.j2", description="Reply to a malformed model reply.")
    timeout_template: str = Field("timeout.j2", description="Observation of a command that timed out.")
    action_observation_template: str = Field("action_observation.j2", description="Observation of a command.")
    action_regex: str = Field(r"```bash\s*\n(.*?)\n```", description="Regex (DOTALL) with one group: the action; "
                              "a reply must match exactly once.")
    submit_command: str = Field(f"echo {SUBMIT_MARKER} && git add -A && git diff --cached",
                                description="The submit command the prompts tell the model to use.")
    submit_markers: list[str] = Field(default_factory=lambda: [SUBMIT_MARKER, "MINI_SWE_AGENT_FINAL_OUTPUT"],
                                      description="A first output line equal to one of these submits the rest.")
    submit_requires_zero_exit: bool = Field(True, description="Only a command exiting 0 can submit.")
    model_params: dict[str, Any] = Field(default_factory=dict, description="Extra parameters of every model call.")

    @field_validator("action_regex")
    @classmethod
    def _one_group(cls, value: str) -> str:
        try:
            groups = re.compile(value, re.DOTALL).groups
        except re.error as exc:
            raise ValueError(f"not a valid regex: {exc}") from None
        if groups != 1:
            raise ValueError(f"must have exactly one capturing group (the action), has {groups}")
        return value

    @model_validator(mode="after")
    def _markers(self) -> "MiniSweAgentConfig":
        if not self.submit_markers:
            raise ValueError("submit_markers must not be empty")
        return self
