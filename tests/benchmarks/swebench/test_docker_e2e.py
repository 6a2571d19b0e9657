"""End to end in Docker, no network: the generated calc instance in an image FROM the local base image.

Each test does what the orchestrator does for one attempt: open the environment from the benchmark's
EnvSpec, setup, run the harness, grade, close.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agentcompass.harnesses.oracle import OracleConfig, OracleHarness
from agentcompass.interfaces import AgentResult, AttemptContext, ComponentContext
from tests.benchmarks.swebench import fixture
from tests.benchmarks.swebench.conftest import CALC_SPECS, make_bench, read_report
from tests.environments.docker_support import TEST_LABELS, remove_session_containers

pytestmark = pytest.mark.docker


@pytest.fixture(autouse=True)
def _teardown_containers():
    yield
    remove_session_containers()


class _Submit:
    """A harness that submits a fixed patch (what an agent's final diff would be)."""

    requires_model = False

    def __init__(self, patch: str | None) -> None:
        self.patch = patch

    async def run(self, task, env, model, ctx) -> AgentResult:
        return AgentResult(exit_status="submitted", submission=self.patch, info={"model_name": "fixed"})


def attempt(tmp_path: Path, bench, harness, model=None, name: str = "a") -> tuple[Any, Path, dict]:
    from agentcompass.environments.docker import DockerProvider
    from agentcompass.environments.docker.config import DockerConfig

    task = bench.load()[0]
    adir = tmp_path / name
    adir.mkdir()

    async def go():
        provider = DockerProvider(DockerConfig(pull_policy="never"), ComponentContext(data_dir=tmp_path))

        async def open_env(spec):
            spec.labels.update({**TEST_LABELS, "agentcompass.run_id": "swebench-e2e"})
            return await provider.open(spec)

        env = await open_env(bench.env_spec(task))
        try:
            ctx = AttemptContext(task=task, attempt=1, attempt_dir=adir, benchmark=bench)
            await bench.setup(task, env, ctx)
            agent = await harness.run(task, env, model, ctx)
            fresh = bench.grading_env_spec(task)  # grade_in: fresh -> a new container, as the official
            if fresh is not None:
                await env.close()
                env = await open_env(fresh)
            grade = await bench.grade(task, env, agent, ctx)
            return grade, agent
        finally:
            await env.close()
            await provider.aclose()

    grade, agent = asyncio.run(go())
    return grade, adir, {"agent": agent}


@pytest.fixture
def docker_bench(tmp_path, calc, calc_image):
    return make_bench(tmp_path / "data", dataset_path=str(calc.jsonl), image_template=calc_image, agent_env={})


def test_oracle_resolves(tmp_path, docker_bench):
    grade, adir, _ = attempt(tmp_path, docker_bench, OracleHarness(OracleConfig(), None))
    assert (grade.reward, grade.resolved, grade.details["status"]) == (1.0, True, "RESOLVED_FULL")
    assert read_report(adir)["patch_successfully_applied"] is True
    out = (adir / "test_output.txt").read_text()
    assert "+ : '>>>>> Start Test Output'" in out and ">>>>> Test Exit Code: 0" in out


def test_instance_image_field_wins_over_the_template(tmp_path, calc, calc_image):
    row = dict(calc.row, image=calc_image)
    path = fixture.write_jsonl([row], tmp_path / "img.jsonl")
    bench = make_bench(
        tmp_path / "data", dataset_path=str(path), image_template="nowhere/{instance_id}:x", agent_env={}
    )
    assert bench.env_spec(bench.load()[0]).build_args["INSTANCE_IMAGE"] == calc_image
    grade, _, _ = attempt(tmp_path, bench, _Submit(calc.row["patch"]))
    assert grade.resolved is True


def test_empty_patch(tmp_path, docker_bench):
    grade, adir, _ = attempt(tmp_path, docker_bench, _Submit(""))
    assert (grade.reward, grade.resolved, grade.details) == (0.0, False, {"status": "empty_patch"})
    assert not (adir / "report.json").exists()


def test_wrong_patch_is_unresolved(tmp_path, calc, docker_bench):
    grade, adir, _ = attempt(tmp_path, docker_bench, _Submit(fixture.patch_for(calc.repo, fixture.WRONG_OPS)))
    assert (grade.reward, grade.resolved, grade.details["status"]) == (0.0, False, "RESOLVED_NO")
    rep = read_report(adir)
    assert rep["patch_successfully_applied"] is True
    assert rep["tests_status"]["FAIL_TO_PASS"]["failure"] == json.loads(calc.row["FAIL_TO_PASS"])
    assert rep["tests_status"]["PASS_TO_PASS"]["failure"] == []


def test_patch_that_does_not_apply(tmp_path, calc, docker_bench):
    bad = calc.row["patch"].replace("-    return a - b", "-    return a / b / c")
    grade, adir, _ = attempt(tmp_path, docker_bench, _Submit(bad))
    assert (grade.reward, grade.resolved, grade.details["status"]) == (0.0, False, "patch_failed")
    assert not (adir / "report.json").exists()  # the official harness writes none: an error instance
    assert ">>>>> Patch Apply Failed" in (adir / "run_instance.log").read_text()


def test_run_evaluation_oracle_on_docker(tmp_path, calc, calc_image):
    from agentcompass import run_evaluation

    result = run_evaluation(
        benchmark="swebench",
        harness="oracle",
        model="none",
        environment="docker",
        benchmark_params={
            "dataset_path": str(calc.parquet_dir),
            "image_template": calc_image,
            "agent_env": {},
            "model_name_or_path": "gold",
            "repo_specs": CALC_SPECS,
        },
        environment_params={"pull_policy": "never"},
        results_dir=str(tmp_path / "results"),
        data_dir=str(tmp_path / "data"),
        progress="none",
    )
    rows = result["summary"].get("tasks", result["summary"])
    assert result["metadata"]["status"] == "completed", rows
    assert result["metrics"]["n_tasks"] == 1 and result["metrics"]["resolved_rate"] == 1.0, rows
    preds = Path(result["paths"]["predictions"])
    assert preds.is_file() and preds.parent == Path(result["paths"]["run_dir"])
    pred = json.loads(preds.read_text().splitlines()[0])
    assert pred == {"instance_id": fixture.INSTANCE_ID, "model_name_or_path": "gold", "model_patch": calc.row["patch"]}
    report = json.loads(Path(result["paths"]["report"]).read_text())
    assert Path(result["paths"]["report"]).name == f"gold.{result['metadata']['run_id']}.json"
    assert report["resolved_ids"] == [fixture.INSTANCE_ID] and report["completed_instances"] == 1
