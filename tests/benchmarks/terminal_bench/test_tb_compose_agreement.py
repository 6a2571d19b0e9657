"""Agreement with Harbor 0.26 itself on multi-container tasks: Harbor's own ``harbor run`` (the ``harbor``
reference venv, its docker environment driving the same ``docker compose`` binary) and agentcompass run the oracle
and nop agents on the compose fixtures, plus a compose task without a solution (an agent-phase failure that both
verify); every trial's reward, reward validity and error presence must be the same. One run of each, ~2 min."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agentcompass.environments.docker.compose_cli import compose_command
from agentcompass.testing.reference import reference_python
from tests.benchmarks.terminal_bench.compose_fixtures import compose_tasks, web_secret
from tests.benchmarks.terminal_bench.reference_support import require_reference
from tests.environments.compose_support import remove_session_projects
from tests.environments.docker_support import TEST_LABELS, api

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture(scope="module", autouse=True)
def engine():
    from tests.environments.docker_support import remove_session_containers, require_engine

    require_engine()
    yield
    remove_session_projects()
    remove_session_containers()


def _docker_config(tmp: Path) -> dict[str, str]:
    """Harbor calls ``docker compose``: give the docker CLI our Compose v2 as its plug-in when it has none."""
    command = compose_command()
    assert command is not None, "Docker Compose v2 is required (pip install 'agentcompass[compose]')"
    if command[:2] == ["docker", "compose"]:
        return {}
    plugins = tmp / "docker-config" / "cli-plugins"
    plugins.mkdir(parents=True)
    (plugins / "docker-compose").symlink_to(command[0])
    return {"DOCKER_CONFIG": str(plugins.parent)}


def _remove_harbor_projects(job_dir: Path) -> None:
    """Harbor names each compose project after its trial; remove what a failed Harbor run may have left."""
    client = api()
    for trial in (p.name.lower() for p in job_dir.iterdir() if p.is_dir()):
        label = {"label": [f"com.docker.compose.project={trial}"]}
        for c in client.containers(all=True, filters=label):
            client.remove_container(c["Id"], v=True, force=True)
        for n in client.networks(filters=label):
            client.remove_network(n["Id"])


def harbor_trials(tmp: Path, dataset: Path) -> dict[tuple[str, str], dict]:
    require_reference("harbor")
    jobs = tmp / "harbor-jobs"
    config = tmp / "job.json"
    config.write_text(
        json.dumps(
            {
                "job_name": "agreement",
                "jobs_dir": str(jobs),
                "n_concurrent_trials": 3,
                "agents": [{"name": "oracle"}, {"name": "nop"}],
                "datasets": [{"path": str(dataset)}],
                "environment": {"type": "docker"},
            }
        )
    )
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": "", **_docker_config(tmp)}
    try:
        res = subprocess.run(
            [str(reference_python("harbor")), "-m", "harbor.cli.main", "run", "-c", str(config), "-y", "-q"],
            env=env,
            cwd=str(tmp),
            capture_output=True,
            text=True,
            timeout=1200,
            check=False,
        )
        assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    finally:
        if (jobs / "agreement").is_dir():
            _remove_harbor_projects(jobs / "agreement")
    trials = {}
    for result in (jobs / "agreement").glob("*/result.json"):
        r = json.loads(result.read_text())
        trials[(r["agent_info"]["name"], r["task_name"])] = {
            "rewards": (r.get("verifier_result") or {}).get("rewards"),
            "reward_valid": r["reward_valid"],
            "error": (r.get("exception_info") or {}).get("exception_type"),
        }
    return trials


def our_trials(tmp: Path, dataset: Path) -> dict[tuple[str, str], dict]:
    from agentcompass import OrchestrationDefaults, OrchestrationSpec, RunRequestSpec, launch

    spec = OrchestrationSpec(
        name="agreement",
        task_concurrency=3,
        defaults=OrchestrationDefaults(
            benchmark={"id": "terminal_bench", "dataset_path": str(dataset)},
            environment={"id": "docker", "labels": TEST_LABELS},
        ),
        requests=[RunRequestSpec(name=h, harness={"id": h}) for h in ("oracle", "nop")],
    )
    result = launch(
        spec, results_dir=str(tmp / "results"), data_dir=str(tmp / "data"), progress="none", log_level="WARNING"
    )
    trials = {}
    for name, outcome in result.requests.items():
        for line in Path(outcome.result["paths"]["results"]).read_text().splitlines():
            row = json.loads(line)
            trials[(name, row["task_id"])] = {
                "rewards": row["rewards"] or None,
                "reward_valid": row["reward_valid"],
                "error": (row["error"] or {}).get("type"),
            }
    return trials


def test_compose_rewards_agree_with_harbor(tmp_path):
    dataset = compose_tasks(tmp_path / "tasks")
    shutil.rmtree(web_secret(dataset, "web-nosol") / "solution")
    theirs = harbor_trials(tmp_path, dataset)
    ours = our_trials(tmp_path, dataset)
    assert sorted(theirs) == sorted(ours) and len(ours) == 6
    for key in sorted(ours):
        mine, harbor = ours[key], theirs[key]
        assert (mine["rewards"], mine["reward_valid"]) == (harbor["rewards"], harbor["reward_valid"]), (
            key,
            mine,
            harbor,
        )
        assert (mine["error"] is None) == (harbor["error"] is None), (key, mine, harbor)
    assert ours[("oracle", "web-nosol")]["error"] == "AgentError"  # Harbor: FileNotFoundError
    assert [ours[("oracle", t)]["rewards"] for t in ("kv-record", "web-nosol", "web-secret")] == [
        {"reward": 1.0},
        {"reward": 0.0},
        {"reward": 1.0},
    ]
