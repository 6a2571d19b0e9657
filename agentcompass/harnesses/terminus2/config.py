"""Configuration of the ``terminus2`` harness (``conf/harness/terminus2.yaml``, ``harness_params``).

Defaults are Harbor 0.26.0's Terminus-2 defaults; the fields that Harbor hard-codes (the 60 s wait cap, the
10,000-byte output cap, the 4,000 free tokens of the reactive unwind, the 3 query tries) are settable here for
experiments, and a run that changes them no longer reproduces Harbor. (No field name contains "session" or
"token": the run's redaction would treat such a value as a secret and scrub it from every message.)
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FALLBACK_CONTEXT_LIMIT = 1_000_000  # Harbor's limit for a model LiteLLM does not know
DEFAULT_MAX_TURNS = 1_000_000  # Harbor's max_episodes default


class Terminus2Config(BaseModel):
    """Settings of the Terminus-2 agent loop (see docs/terminus2.md)."""

    model_config = ConfigDict(extra="forbid")

    max_turns: int = Field(
        DEFAULT_MAX_TURNS,
        ge=1,
        description="Maximum number of episodes (model replies); a "
        "run that reaches it ends with limit_hit='max_turns' and is still graded.",
    )
    context_limit: int | None = Field(
        None,
        ge=1,
        description="Context window in tokens; null = the model "
        "config's context_limit, else LiteLLM's max_input_tokens for the model "
        "(as Harbor), else 1000000.",
    )
    output_limit: int | None = Field(
        None,
        ge=1,
        description="Output limit quoted to the model after a reply is "
        "cut; null = LiteLLM's max_output_tokens for the model (as Harbor), else "
        "Harbor's wording for an unknown limit.",
    )
    proactive_summarization_threshold: int = Field(
        8000, ge=0, description="Summarize before an episode when fewer free tokens than this remain (0 disables it)."
    )
    enable_summarize: bool = Field(
        True, description="Summarize when the context fills up; false lets a context-length error end the attempt."
    )
    record_terminal: bool = Field(
        True,
        description="Type Harbor's asciinema start-up keys into the "
        "session (recording when the image has asciinema), then clear.",
    )
    templates_dir: str | None = Field(
        None,
        description="A copy of Harbor 0.26.0's harbor/agents/terminus_2/ "
        "directory (or its templates/ folder, or Harbor's wheel); null = the "
        "installed harbor package, else its wheel in data_dir.",
    )
    duration_cap_s: int | float = Field(
        60, gt=0, description="Upper bound on the wait after each command (Harbor: 60)."
    )
    max_output_bytes: int = Field(
        10_000,
        ge=100,
        description="Cap on the terminal output of one observation: "
        "the first and last halves are kept (Harbor: 10000).",
    )
    reactive_target_free: int = Field(
        4000,
        ge=0,
        description="After a context-length error, drop the latest "
        "exchanges until this many tokens are free (Harbor: 4000).",
    )
    model_query_attempts: int = Field(
        3, ge=1, description="Tries of one episode's query on any error but a context-length one (Harbor: 3)."
    )
    tmux_name: str = Field("terminus-2", pattern=r"^[A-Za-z0-9_-]+$", description="Name of the tmux session.")
    pane_width: int = Field(160, ge=20, description="tmux window width (columns).")
    pane_height: int = Field(40, ge=5, description="tmux window height (rows).")
    history_limit: int = Field(
        10_000,
        ge=0,
        description="tmux history-limit, lines of scrollback for panes "
        "made after the session (Harbor: 10000000; a flooding command then grows tmux "
        "by gigabytes).",
    )
    pane_log_bytes: int = Field(
        2_000_000,
        ge=2,
        description="The pane log /logs/agent/terminus_2.pane keeps "
        "its first and last halves of this (Harbor keeps everything).",
    )
    stop_tmux: Literal["auto", "always", "never"] = Field(
        "auto",
        description=(
            "Kill the tmux server when the agent finishes. auto: in the local environment yes (host processes "
            "must not outlive the attempt); in containers no, so services the agent started stay up for the "
            "verifier, as in Harbor; the container's removal ends them."
        ),
    )
