"""Configuration of the SWE-bench benchmarks: ``SWEBenchConfig`` and the user's ``repo_specs`` entries."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

DEFAULT_IMAGE_TEMPLATE = "swebench/sweb.eval.{arch}.{instance_id_1776}:latest"


class RepoSpecConfig(BaseModel):
    """How to test one (repository, version): added to, or replacing, the official table."""

    model_config = ConfigDict(extra="forbid")
    test_cmd: str = Field(description="Base test command; the test files of test_patch are appended.")
    log_parser: str = Field("parse_log_pytest", description="A key of the log-parser registry.")
    install: str | None = Field(None, description="Command run before the tests (e.g. a re-install).")
    eval_commands: list[str] = Field(default_factory=list, description="Preparation commands run first.")
    eval_type: str = Field("pass_and_fail", description="pass_and_fail | fail_only.")
    language: Literal["py", "js", "java", "go", "rs", "c", "php", "rb"] = Field(
        "py", description="py: the Python script layout; any other: the layout of the other languages."
    )
    build: list[str] = Field(default_factory=list, description="Non-Python: build steps after the test patch.")


class SWEBenchConfig(BaseModel):
    """SWE-bench: one task per instance, graded by the instance's FAIL_TO_PASS / PASS_TO_PASS tests."""

    model_config = ConfigDict(extra="forbid")
    dataset_name: str = Field(
        "SWE-bench/SWE-bench_Verified",
        description="Hub dataset id; also the folder name under <data_dir>/swebench/ where a local copy is looked for.",
    )
    dataset_path: str | None = Field(
        None,
        description="A .parquet/.jsonl/.json file or a directory "
        "(data/<split>-*.parquet, <split>.parquet, <split>.jsonl, <split>.json).",
    )
    split: str = Field("test", description="Dataset split.")
    revision: str | None = Field(None, description="Hub dataset revision (commit) downloaded; null: the latest.")
    sample_ids: list[str] | None = Field(None, description="Instance ids to run (an unknown id is an error).")
    limit: int | None = Field(None, ge=1, description="Run only the first N selected instances.")
    allow_download: bool = Field(
        True,
        description="Download the dataset with huggingface_hub when no local "
        "copy exists (needs the 'hub' extra and network).",
    )
    image_template: str = Field(
        DEFAULT_IMAGE_TEMPLATE,
        description="Environment image name; placeholders "
        "{arch}, {instance_id}, {instance_id_lower}, {instance_id_1776}. An instance's own "
        "'image' field wins.",
    )
    arch: str = Field("x86_64", description="Value of {arch} in image_template: x86_64 or arm64.")
    eval_timeout_s: float = Field(1800.0, gt=0, description="Time limit of the test run (eval.sh).")
    workdir: str = Field("/testbed", description="Repository directory inside the image (agent cwd).")
    model_name_or_path: str | None = Field(
        None,
        description="model_name_or_path written to preds.jsonl and "
        "report names; default: the model id reported by the harness.",
    )
    include_hints: bool = Field(False, description="Append hints_text to the problem statement.")
    agent_env: dict[str, str] = Field(
        default_factory=lambda: {"BASH_ENV": "/root/.bashrc"},
        description=(
            "Variables for the agent's commands (Task.env); BASH_ENV makes non-interactive bash activate the "
            "images' conda env. Set {} with the local environment, whose ~/.bashrc is the host's."
        ),
    )
    repo_specs: dict[str, dict[str, RepoSpecConfig]] = Field(
        default_factory=dict,
        description=("repo -> version ('*': any version) -> how to test it; added to / replacing the official table."),
    )
    grade_in: Literal["fresh", "agent"] = Field(
        "fresh",
        description=(
            "fresh (official): grade in a new environment from the instance image with the saved patch applied; "
            "agent (not official): grade in the agent's environment after resetting its repository."
        ),
    )
    history: Literal["base_only", "full"] = Field(
        "base_only",
        description=(
            "base_only (hardening): the agent's image is built from the instance image with nothing of the "
            "repository after the base commit (no tags, remotes, other refs, reflog, stash or unreachable objects; "
            "checked when the image is built); full: the instance image as published. docs/swebench.md"
        ),
    )
    predictions_path: str | None = Field(
        None,
        description=(
            "Predictions for the 'predictions' harness: a .jsonl / .json file (list, or dict keyed by instance id) "
            "of {instance_id, model_name_or_path, model_patch}, or 'gold' for the dataset's own patches."
        ),
    )

    @field_validator("sample_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        return value

    @field_validator("arch")
    @classmethod
    def _check_arch(cls, value: str) -> str:
        if value not in ("x86_64", "arm64"):
            raise ValueError(f"arch must be x86_64 or arm64, got {value!r}")
        return value
