"""A task that runs out of memory in docker: the kernel's OOM kill is the attempt's error, named with the limit,
classified so that it is not retried by default; the run goes on."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from agentcompass.benchmarks import demo
from tests.environments.docker_support import TEST_LABELS, api

pytestmark = pytest.mark.docker

ROOT = Path(__file__).resolve().parents[2]
DEMO = Path(demo.__file__).with_name("demo_tasks")
ALLOCATE = "python3 -c 'b = bytearray(300 * 1024 * 1024); print(len(b))'"


def dataset(root: Path) -> Path:
    """Two tasks of the demo's image: one whose solution allocates 300 MB, one that passes."""
    for name in ("hello-file", "greedy"):
        shutil.copytree(DEMO / "hello-file", root / name)
    solve = root / "greedy" / "solution" / "solve.sh"
    solve.write_text(solve.read_text().replace("printf", f"{ALLOCATE}\nprintf", 1))
    return root


def test_an_out_of_memory_task_is_reported_as_such_and_not_retried(docker_engine, tmp_path):
    results, run_id = tmp_path / "results", f"oom-{uuid.uuid4().hex[:8]}"
    done = subprocess.run(
        [sys.executable, "-m", "agentcompass", "run", "terminal_bench", "oracle", "none", "--env", "docker"]
        + ["--benchmark-params", json.dumps({"dataset_path": str(dataset(tmp_path / "tasks"))})]
        + ["--env-params", json.dumps({"memory": "64m", "labels": TEST_LABELS})]
        + ["--max-retries", "2", "--results-dir", str(results), "--run-id", run_id, "--progress", "none"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    assert done.returncode == 1, done.stderr  # some task ended in an error; the run went on and finished
    (run_dir,) = results.glob(f"*/{run_id}")
    rows = {r["task_id"]: r for r in map(json.loads, (run_dir / "results.jsonl").read_text().splitlines())}
    assert rows["hello-file"]["status"] == "completed" and rows["hello-file"]["reward"] == 1.0
    greedy = rows["greedy"]
    assert greedy["status"] == "error" and greedy["attempts"] == 1  # not retried, with max_retries 2
    (attempt,) = run_dir.glob("tasks/greedy/sample-1/attempt-*")
    result = json.loads((attempt / "result.json").read_text())
    assert result["error_type"] == "OutOfMemoryError" and result["error_class"] == "infra"
    assert result["retryable"] is False
    assert result["error"].startswith("OutOfMemoryError: out of memory: the kernel killed 1 process of container ")
    assert "at its memory limit (64 MB); then the reward is 0" in result["error"], result["error"]
    assert result["environment"]["out_of_memory"].endswith("at its memory limit (64 MB)")
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["metrics"]["errors_by_class"]["infra"] == 1 and summary["metrics"]["n_retries"] == 0
    assert api().containers(all=True, filters={"label": [f"agentcompass.run_id={run_id}"]}) == []


def test_retry_pattern_list_can_still_retry_it(docker_engine, tmp_path):
    results, run_id = tmp_path / "results", f"oom-{uuid.uuid4().hex[:8]}"
    tasks = dataset(tmp_path / "tasks")
    shutil.rmtree(tasks / "hello-file")
    done = subprocess.run(
        [sys.executable, "-m", "agentcompass", "run", "terminal_bench", "oracle", "none", "--env", "docker"]
        + ["--benchmark-params", json.dumps({"dataset_path": str(tasks)})]
        + ["--env-params", json.dumps({"memory": "64m", "labels": TEST_LABELS})]
        + ["--max-retries", "1", "--retry-pattern-list", '["OutOfMemoryError"]']
        + ["--results-dir", str(results), "--run-id", run_id, "--progress", "none"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    assert done.returncode == 1, done.stderr
    (run_dir,) = results.glob(f"*/{run_id}")
    (row,) = map(json.loads, (run_dir / "results.jsonl").read_text().splitlines())
    assert row["attempts"] == 2 and row["error"]["type"] == "OutOfMemoryError"
