"""Configuration of the ``terminus2`` harness (``conf/harness/terminus2.yaml``, ``harness_params``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_CONTEXT_LIMIT = 128_000


class Terminus2Config(BaseModel):
    """Settings of the Terminus-2 agent loop (FORMATS.md D)."""

    model_config = ConfigDict(extra="forbid")

    max_turns: int = Field(1000, ge=1, description="Maximum number of episodes (model replies); a run that "
                           "reaches it ends with limit_hit='max_turns' and is still graded.")
    context_limit: int | None = Field(None, ge=1, description="Context window of the model in tokens; null = "
                                      "the model's own context_limit attribute when it has one, else 128000.")
    duration_cap_s: float = Field(60.0, gt=0, description="Upper bound on the wait after each command "
                                  "(a longer 'duration' is capped, with a warning to the model).")
    max_output_bytes: int = Field(10_000, ge=100, description="Cap on the terminal output shown per turn: "
                                  "the first and last halves are kept, cut on UTF-8 character boundaries.")
    proactive_summarization_threshold: int = Field(8000, ge=0, description="Summarize the conversation before "
                                                   "a turn when fewer free tokens than this remain.")
    reactive_free_tokens: int = Field(4000, ge=0, description="After a context-length error, drop the latest "
                                      "exchanges until this many tokens are free, then summarize.")
    enable_summarize: bool = Field(True, description="Summarize when the context fills up; false lets a "
                                   "context-length error end the attempt.")
    model_query_attempts: int = Field(3, ge=1, description="Tries per model query when the model layer "
                                      "still reports a retryable (transport or 5xx) error after its own retries.")
    session_name: str = Field("terminus-2", pattern=r"^[A-Za-z0-9_-]+$", description="tmux session name.")
    pane_width: int = Field(160, ge=20, description="tmux window width (columns).")
    pane_height: int = Field(40, ge=5, description="tmux window height (rows).")
    history_limit: int = Field(10_000_000, ge=1000, description="tmux scrollback lines kept (history-limit).")
    stop_session: Literal["auto", "always", "never"] = Field("auto", description=(
        "Kill the tmux server when the agent finishes. auto: in the local environment yes (host processes "
        "must not outlive the attempt); in containers no, so services the agent started stay up for the "
        "verifier, as in Terminal-Bench; the container's removal ends them."))
    templates_dir: str | None = Field(None, description="Directory with replacement *.j2 prompt templates "
                                      "(same names as harnesses/templates/terminus2/); null = the built-ins.")
