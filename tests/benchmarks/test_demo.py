"""The bundled demo benchmark: its task files. That the reference solution scores 1 and doing nothing 0 on every
task is the conformance suite's (tests/benchmarks/test_conformance.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentcompass._config.registry import build, conf_dir
from agentcompass.benchmarks.demo import DEMO_TASKS_DIR, DemoBenchmark, DemoConfig
from agentcompass.benchmarks.terminal_bench.task_toml import parse_task_toml
from agentcompass.interfaces import ComponentContext
from tests.benchmarks.tb_fixtures import attempt, local_provider, run  # noqa: F401  (fixture)

DEMO = DemoBenchmark(DemoConfig(), None)
TASKS = {t.id: t for t in DEMO.load()}


def test_demo_has_at_least_six_valid_tasks_in_both_toml_forms():
    assert len(TASKS) >= 6 and DEMO.problems == []
    texts = [(DEMO_TASKS_DIR / tid / "task.toml").read_text() for tid in TASKS]
    assert all(parse_task_toml(DEMO_TASKS_DIR / tid / "task.toml") for tid in TASKS)
    assert any(re.search(r"^version = ", t, re.M) and 'memory = "' in t for t in texts)  # published
    assert any(re.search(r"^schema_version = ", t, re.M) and "memory_mb = " in t for t in texts)  # normalized
    assert any((DEMO_TASKS_DIR / tid / "tests/test.sh").read_text().count("reward.json") for tid in TASKS)


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_task_files_follow_the_conventions(task_id):
    root = DEMO_TASKS_DIR / task_id
    dockerfile = (root / "environment/Dockerfile").read_text()
    assert "ARG BASE_IMAGE=python:3.12-bookworm" in dockerfile and "FROM ${BASE_IMAGE}" in dockerfile
    assert "WORKDIR /app" in dockerfile
    assert ("COPY files/ /app/" in dockerfile) == (root / "environment/files").is_dir()
    for script in ("tests/test.sh", "solution/solve.sh"):
        text = (root / script).read_text()
        assert text.startswith("#!/bin/bash\n")
        # container paths only through the variables (with their container defaults)
        bare = re.findall(r"(?<![-:])(/app|/logs|/tests|/solution)\b", text)
        assert not bare, f"{script} uses bare container paths {bare}"


def test_partial_credit_task_reports_each_step(local_provider):  # noqa: F811
    task = TASKS["partial-credit"]

    async def body():
        env = await local_provider.open(DEMO.env_spec(task))
        try:
            await DEMO.setup(task, env, None)
            await env.exec("mkdir out && echo hi > out/greeting.txt")
            return await DEMO.grade(task, env, None, None)
        finally:
            await env.close()

    grade = run(body())
    assert grade.rewards == {"reward": 0.5, "dir": 1.0, "greeting": 1.0, "script": 0.0, "config": 0.0}
    assert grade.resolved is False


def test_demo_built_from_its_config_file(tmp_path):
    import yaml

    cfg = yaml.safe_load((conf_dir() / "benchmark/demo.yaml").read_text())
    benchmark = build("benchmark", {**cfg, "limit": 2}, ComponentContext(data_dir=tmp_path))
    assert benchmark.id == "demo" and len(benchmark.load()) == 2
    generic = yaml.safe_load((conf_dir() / "benchmark/terminal_bench.yaml").read_text())
    tb = build("benchmark", {**generic, "dataset_path": str(DEMO_TASKS_DIR)}, ComponentContext(data_dir=tmp_path))
    assert tb.id == "terminal_bench" and {t.id for t in tb.load()} == set(TASKS)
    assert Path(tb.env_spec(tb.load()[0]).dockerfile_dir).is_dir()
