"""Builders of Terminal-Bench-format task directories for tests."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest

from agentcompass.environments.local import LocalConfig, LocalProvider

PUBLISHED_TOML = """\
version = "1.0"

[metadata]
author_name = "Test Author"
difficulty = "easy"
category = "testing"
tags = ["a", "b"]

[verifier]
timeout_sec = 30.0

[agent]
timeout_sec = 45.0

[environment]
build_timeout_sec = 120.0
cpus = 2
memory = "2G"
storage = "10G"
"""

NORMALIZED_TOML = """\
schema_version = "1.3"

[task]
name = "terminal-bench/norm"
description = "normalized form"
keywords = ["k1"]

[[task.authors]]
name = "Someone"

[metadata]
difficulty = "hard"

[verifier]
timeout_sec = 20

[verifier.env]
CHECK_MODE = "strict"

[agent]
timeout_sec = 90

[environment]
memory_mb = 4096
storage_mb = 20480
gpus = 0
allow_internet = false
mcp_servers = []

[environment.env]
APP_MODE = "test"

[solution.env]
SOLUTION_FLAG = "1"
"""

REWARD_TEST = """\
#!/bin/bash
OUT="${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier"
if [ -f "${AGENTCOMPASS_WORKDIR:-/app}/done.txt" ]; then echo 1 > "$OUT/reward.txt"; else echo 0 > "$OUT/reward.txt"; fi
"""

SOLVE = """\
#!/bin/bash
touch "${AGENTCOMPASS_WORKDIR:-/app}/done.txt"
"""


def make_task(
    root: Path,
    task_id: str,
    *,
    toml: str = PUBLISHED_TOML,
    dockerfile: str | None = "FROM scratch\nWORKDIR /app\n",
    test_sh: str | None = REWARD_TEST,
    solve_sh: str | None = SOLVE,
    instruction: str | None = "Create done.txt.\n",
    files: dict[str, str] | None = None,
) -> Path:
    """Write one task directory; pass None to leave a part out."""
    task = root / task_id
    task.mkdir(parents=True)
    if toml is not None:
        (task / "task.toml").write_text(textwrap.dedent(toml))
    if instruction is not None:
        (task / "instruction.md").write_text(instruction)
    if dockerfile is not None:
        (task / "environment").mkdir()
        (task / "environment/Dockerfile").write_text(dockerfile)
    if test_sh is not None:
        (task / "tests").mkdir()
        (task / "tests/test.sh").write_text(test_sh)
    if solve_sh is not None:
        (task / "solution").mkdir()
        (task / "solution/solve.sh").write_text(solve_sh)
    for rel, content in (files or {}).items():
        (task / rel).parent.mkdir(parents=True, exist_ok=True)
        (task / rel).write_text(content)
    return task


async def apply_solution(benchmark, task, env) -> None:
    """What the oracle harness does: upload the solution files, run the command from the workdir."""
    solution = benchmark.reference_solution(task)
    for dst, src in solution.files.items():
        await env.upload(src, dst)
    result = await env.exec(solution.command, env=solution.env or None, timeout=120)
    assert result.exit_code == 0, result.output


async def attempt(provider, benchmark, task, *, solve: bool):
    """open -> setup -> (solution) -> grade -> close, like one orchestrator attempt."""
    env = await provider.open(benchmark.env_spec(task))
    try:
        await benchmark.setup(task, env, None)
        if solve:
            await apply_solution(benchmark, task, env)
        return await benchmark.grade(task, env, None, None)
    finally:
        await env.close()


def run(coro):
    return asyncio.run(coro)


@pytest.fixture
def local_provider(tmp_path):
    """A local environment provider rooted in the test's temporary directory."""
    return LocalProvider(LocalConfig(root_dir=str(tmp_path / "workspaces")), None)
