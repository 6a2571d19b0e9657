"""Multi-container Terminal-Bench tasks end to end (real engine, real ``docker compose``): the oracle scores 1 and
nop 0 on both compose fixtures, with the attempts of each task running at the same time; a SIGKILL-ed CLI run
leaves its projects behind, and ``agentcompass cleanup`` removes every container, network, volume and image."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentcompass.environments.docker.compose import PROJECT_LABEL, project_name
from tests.benchmarks.terminal_bench.compose_fixtures import compose_tasks
from tests.environments.compose_support import (
    nothing_left,
    project_resources,
    remove_session_projects,
    session_projects,
)
from tests.environments.docker_support import REPO, SESSION, TEST_LABELS, api, session_containers

pytestmark = [pytest.mark.docker, pytest.mark.slow]
HARNESSES = "tests.benchmarks.terminal_bench.tb_harnesses"


@pytest.fixture(scope="module", autouse=True)
def engine():
    from tests.environments.docker_support import remove_session_containers, require_engine

    require_engine()
    yield
    remove_session_projects()
    remove_session_containers()


def test_oracle_scores_one_and_nop_zero_with_attempts_in_parallel(tmp_path):
    from agentcompass import OrchestrationDefaults, OrchestrationSpec, RunRequestSpec, launch

    dataset = compose_tasks(tmp_path / "tasks")
    spec = OrchestrationSpec(
        name="compose",
        task_concurrency=4,
        defaults=OrchestrationDefaults(
            benchmark={"id": "terminal_bench", "dataset_path": str(dataset)},
            environment={"id": "docker", "labels": TEST_LABELS},
        ),
        requests=[
            RunRequestSpec(name="oracle", harness={"id": "oracle"}),
            RunRequestSpec(name="nop", harness={"id": "nop"}),
        ],
    )
    result = launch(
        spec,
        results_dir=str(tmp_path / "results"),
        data_dir=str(tmp_path / "data"),
        progress="none",
        log_level="WARNING",
    )
    assert result.status == "completed", {n: o.error for n, o in result.requests.items()}
    assert result.pool["max_running"] == 4  # both attempts of each task were up at once
    for name, expected in (("oracle", 1.0), ("nop", 0.0)):
        res = result.requests[name].result
        rows = {r["task_id"]: r for r in res["summary"]["tasks"]}
        assert sorted(rows) == ["kv-record", "web-secret"]
        for tid, row in rows.items():
            assert (row["status"], row["reward"], row["attempts"]) == ("completed", expected, 1), (name, tid, row)
            attempt = json.loads(
                (Path(res["paths"]["tasks"]) / tid / "sample-1" / "attempt-1" / "result.json").read_text()
            )
            project = attempt["environment"]["compose_project"]
            prefix = project_name(res["metadata"]["run_id"], tid).rsplit("_", 1)[0]  # ac_<run id>_<task>
            assert project.startswith(prefix + "_") and nothing_left(project)
        assert res["metrics"]["mean_reward"] == expected and res["metrics"]["n_errors"] == 0
    assert session_projects() == set() and session_containers() == []


def _cli(tmp: Path, run_id: str) -> subprocess.Popen:
    dataset = compose_tasks(tmp / "tasks", agent_timeout=600)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = [
        sys.executable,
        "-m",
        "agentcompass",
        "run",
        "terminal_bench",
        "nop",
        "none",
        "--env",
        "docker",
        "--run-id",
        run_id,
        "--results-dir",
        str(tmp / "results"),
        "--data-dir",
        str(tmp / "data"),
        "--progress",
        "none",
        "--task-concurrency",
        "2",
        "--benchmark-params",
        json.dumps({"dataset_path": str(dataset)}),
        "--env-params",
        json.dumps({"labels": TEST_LABELS}),
        f"harness._target_={HARNESSES}.SleepHarness",
        "+harness.sleep_s=600",
    ]
    return subprocess.Popen(argv, env=env, cwd=str(tmp), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _running_projects(run_id: str) -> set[str]:
    found = api().containers(
        filters={"label": [f"agentcompass.run_id={run_id}", PROJECT_LABEL, "com.docker.compose.service=main"]}
    )
    return {c["Labels"][PROJECT_LABEL] for c in found}


def test_sigkilled_run_leaves_nothing_after_cleanup(tmp_path):
    run_id = f"killed-{SESSION}"
    proc = _cli(tmp_path, run_id)
    deadline = time.monotonic() + 240
    try:
        while len(_running_projects(run_id)) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(1)
        projects = _running_projects(run_id)
        assert len(projects) == 2, proc.stdout.read().decode() if proc.poll() is not None else "timed out"
        time.sleep(2)  # the agents are sleeping inside main
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    left = {p: project_resources(p) for p in projects}
    assert all(r["containers"] and r["networks"] and r["files"] for r in left.values()), left
    assert any(r["volumes"] for r in left.values()) and any(r["images"] for r in left.values())  # kv: volume, image
    res = subprocess.run(
        [sys.executable, "-m", "agentcompass", "cleanup", "--run-id", run_id],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert all(nothing_left(p) for p in projects), {p: project_resources(p) for p in projects}
    assert session_containers({"agentcompass.run_id": run_id}) == []


def test_cancelled_run_takes_its_projects_down(tmp_path):
    from agentcompass import run_evaluation
    from agentcompass.errors import RunTimeoutError

    dataset = compose_tasks(tmp_path / "tasks", agent_timeout=600)
    with pytest.raises(RunTimeoutError) as info:
        run_evaluation(
            benchmark="terminal_bench",
            harness="nop",
            model="none",
            environment="docker",
            benchmark_params={"dataset_path": str(dataset)},
            environment_params={"labels": TEST_LABELS},
            overrides=[f"harness._target_={HARNESSES}.SleepHarness", "+harness.sleep_s=600"],
            timeout_seconds=30,
            task_concurrency=2,
            progress="none",
            log_level="WARNING",
            results_dir=str(tmp_path / "results"),
            data_dir=str(tmp_path / "data"),
        )
    tasks = Path(info.value.result["paths"]["tasks"])
    projects = [
        json.loads(p.read_text())["environment"].get("compose_project")
        for p in tasks.glob("*/sample-1/attempt-1/result.json")
    ]
    assert len(projects) == 2 and all(projects), projects  # both were up (the agents were sleeping)
    assert all(nothing_left(p) for p in projects), {p: project_resources(p) for p in projects}
    assert session_projects() == set()
