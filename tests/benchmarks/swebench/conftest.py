"""Shared fixtures: the generated ``calc`` SWE-bench dataset, benchmark objects, a grading helper."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentcompass.benchmarks.swebench.benchmark import SWEBenchBenchmark, SWEBenchConfig
from agentcompass.interfaces import AgentResult, AttemptContext, ComponentContext, Grade, Task
from tests.benchmarks.swebench import fixture

REPO_ROOT = Path(__file__).resolve().parents[3]


@dataclass
class CalcData:
    root: Path
    repo: Path
    row: dict[str, Any]
    jsonl: Path
    parquet_dir: Path


@pytest.fixture(scope="session")
def calc(tmp_path_factory) -> CalcData:
    root = tmp_path_factory.mktemp("calc")
    row = fixture.make_calc(root)
    jsonl = fixture.write_jsonl([row], root / "dataset" / "calc.jsonl")
    parquet_dir = root / "hub"
    fixture.write_parquet([row], parquet_dir / "data" / "test-00000-of-00001.parquet")
    return CalcData(root, root / "calc", row, jsonl, parquet_dir)


CALC_SPECS = {"calc/calc": {"0.1": {"test_cmd": "pytest -rA", "log_parser": "parse_log_pytest"}}}


def make_bench(data_dir: Path, harness_id: str = "", **cfg: Any) -> SWEBenchBenchmark:
    cfg.setdefault("repo_specs", CALC_SPECS)
    ctx = ComponentContext(data_dir=data_dir, run_id="run-1", harness_id=harness_id)
    bench = SWEBenchBenchmark(SWEBenchConfig(**cfg), ctx)
    bench.id = "swebench"
    return bench


async def grade(
    bench: SWEBenchBenchmark, task: Task, env: Any, submission: str | None, attempt_dir: Path, model: str = "test-model"
) -> Grade:
    """What the orchestrator does after opening the environment: setup, (agent), grade."""
    ctx = AttemptContext(task=task, attempt=1, attempt_dir=attempt_dir, benchmark=bench)
    attempt_dir.mkdir(parents=True, exist_ok=True)
    await bench.setup(task, env, ctx)
    return await bench.grade(task, env, AgentResult(submission=submission, info={"model_name": model}), ctx)


def read_report(attempt_dir: Path, iid: str = fixture.INSTANCE_ID) -> dict[str, Any]:
    return json.loads((attempt_dir / "report.json").read_text())[iid]


def run(coro):
    return asyncio.run(coro)


# --------------------------------------------------------------------------- docker


def _docker_ready() -> str | None:
    """None when the engine answers and the base image exists (after scripts/ensure_docker.sh)."""
    script = REPO_ROOT / "scripts" / "ensure_docker.sh"
    try:
        proc = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=1500)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"ensure_docker.sh failed: {exc}"
    return None if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["ensure_docker.sh failed"])[-1]


def skip_or_fail(reason: str) -> None:
    """Skip locally; under CI (CI=true) a missing engine or reference package is a failure."""
    if os.environ.get("CI"):
        pytest.fail(f"CI: {reason}", pytrace=False)
    pytest.skip(reason)


def need_reference(name: str) -> None:
    """The reference venv ``name`` (scripts/ensure_reference.sh) must exist."""
    from agentcompass.testing.reference import reference_python

    if reference_python(name) is None:
        skip_or_fail(f"reference venv {name!r} is missing: run scripts/ensure_reference.sh {name}")


@pytest.fixture(scope="session")
def docker_ready() -> None:
    reason = _docker_ready()
    if reason:
        skip_or_fail(f"no docker engine: {reason}")


@pytest.fixture(scope="session")
def calc_image(docker_ready, calc) -> str:
    tag = fixture.build_image(calc.repo, f"{fixture.IMAGE_REPO}:{uuid.uuid4().hex[:12]}")  # unique per session
    yield tag
    subprocess.run(["docker", "rmi", "-f", *derived_images(tag), tag], capture_output=True)


def derived_images(base: str) -> list[str]:
    """The images built FROM ``base`` by ``history: base_only`` (their layers start with its layers)."""

    def layers(ref: str) -> list[str]:
        out = subprocess.run(
            ["docker", "image", "inspect", "--format", "{{json .RootFS.Layers}}", ref], capture_output=True, text=True
        )
        return json.loads(out.stdout) if out.returncode == 0 and out.stdout.strip() else []

    own = layers(base)
    listed = subprocess.run(
        ["docker", "images", "--format", "{{.Repository}}:{{.Tag}}", "agentcompass/swebench/*"],
        capture_output=True,
        text=True,
    ).stdout.split()
    return [ref for ref in listed if own and len(layers(ref)) > len(own) and layers(ref)[: len(own)] == own]
