"""Configuration of the ``docker`` environment provider (``conf/environment/docker.yaml``).

Resource and placement values of a task (its EnvSpec: cpus, memory, network, workdir, env) are the defaults;
a value set here overrides them for every task of the request.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

# a public image with what the bundled tasks need (bash, python3, git, patch, coreutils); where it can be neither
# found nor pulled, the offline fallback (base_image.py) is built with debootstrap and used instead
DEFAULT_BASE_IMAGE = "python:3.12-bookworm"
DEFAULT_BUILD_TIMEOUT_S = 1800.0
_MEMORY = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?\s*$", re.IGNORECASE)
_UNIT_MB = {"": 1 / (1024 * 1024), "k": 1 / 1024, "m": 1, "g": 1024, "t": 1024 * 1024}


def parse_memory_mb(value: str | int | float | None) -> int | None:
    """``"2G"`` / ``"512m"`` / ``"1.5GiB"`` -> MB; a bare number is MB; None stays None."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"memory must be like '2G', '512M' or a number of MB, got {value!r}")
    if isinstance(value, (int, float)):
        mb = float(value)
    else:
        m = _MEMORY.match(value)
        if not m:
            raise ValueError(f"memory must be like '2G', '512M' or a number of MB, got {value!r}")
        unit = m.group(2).lower()
        mb = float(m.group(1)) * (_UNIT_MB[unit] if unit or m.group(3) else 1)  # bare number: MB
    if mb < 6:
        raise ValueError(f"memory must be at least 6 MB (Docker's minimum), got {value!r}")
    return int(mb)


class DockerConfig(BaseModel):
    """Configuration of the ``docker`` environment provider."""

    model_config = ConfigDict(extra="forbid")

    pull_policy: Literal["always", "missing", "never"] = Field(
        "missing", description="When to pull a task's image: always, only when missing locally, or never."
    )
    cpus: float | None = Field(None, gt=0, description="CPUs per container (overrides the task's value).")
    memory: str | int | None = Field(
        None,
        description="Memory limit per container, e.g. '2G' or a number of "
        "MB (overrides the task's value); swap is not allowed beyond it.",
    )
    network: Literal["bridge", "none"] | None = Field(
        None, description="Network mode (overrides the task's); default: the task's, else bridge."
    )
    env: dict[str, str] = Field(
        default_factory=dict, description="Extra environment variables of every container (win over the task's)."
    )
    labels: dict[str, str] = Field(
        default_factory=dict,
        description="Extra labels of every container (the agentcompass.* labels of the run are always set).",
    )
    workdir: str | None = Field(None, description="Working directory in the container (overrides the task's).")
    platform: str | None = Field(None, description="Image platform, e.g. linux/amd64 (pull, build, create).")
    max_concurrent: int | None = Field(
        None,
        ge=1,
        description="At most this many docker environments at "
        "once (the orchestrator applies the smaller of it and provider_limits).",
    )
    build_timeout_s: float | None = Field(
        None,
        gt=0,
        description=f"Image build timeout in seconds (overrides the task's; default {DEFAULT_BUILD_TIMEOUT_S:.0f}).",
    )
    exec_output_limit: int = Field(
        1_000_000,
        ge=64,
        description="Bytes kept per stream of one command (first and last half; the middle is elided with a marker).",
    )
    base_image: str = Field(
        DEFAULT_BASE_IMAGE, description="Build argument BASE_IMAGE of Dockerfile builds whose task does not set it."
    )
    base_fallback: bool = Field(
        True,
        description="When the default base image (or the fallback image itself) "
        "can be neither found nor pulled, build the fallback with debootstrap and use it.",
    )
    base_fallback_image: str = Field(
        "agentcompass/base:bookworm",
        description="Tag of the offline fallback base image (Debian bookworm built with debootstrap).",
    )
    debian_mirror: str = Field(
        "http://deb.debian.org/debian", description="Mirror debootstrap builds the fallback base image from."
    )
    open_timeout_s: float = Field(300.0, gt=0, description="Seconds allowed to create and start a container.")
    engine_wait_s: float = Field(
        120.0,
        ge=0,
        description="After the engine stopped answering, how long an open (a retry) waits for it to answer again.",
    )

    @field_validator("memory")
    @classmethod
    def _memory(cls, v: str | int | None) -> str | int | None:
        parse_memory_mb(v)
        return v

    @property
    def memory_mb(self) -> int | None:
        return parse_memory_mb(self.memory)
