"""Terminal-Bench end to end with the real Docker engine and no network: ``run_evaluation`` over the fixture
tasks (built FROM the local base image), git sources, agent timeouts, isolation, resources, Terminal-Bench 1,
and agreement of our grades with the published reward rules (FORMATS.md C4) recomputed independently."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.benchmarks.terminal_bench.conftest import TB1_TASKS, TB2_SPECIAL, TB2_TASKS, VALID_TB2
from tests.environments.docker_support import TEST_LABELS, session_containers

pytestmark = [pytest.mark.docker, pytest.mark.slow]
HARNESSES = "tests.benchmarks.terminal_bench.tb_harnesses"


@pytest.fixture(scope="module", autouse=True)
def engine():
    from tests.environments.docker_support import remove_session_containers, require_engine

    require_engine()
    yield
    remove_session_containers()


def evaluate(tmp: Path, harness: str = "oracle", *, dataset: Path | None = TB2_TASKS, overrides=(), **kw: Any):
    from agentcompass import run_evaluation

    params = {"dataset_path": str(dataset)} if dataset is not None else {}
    params.update(kw.pop("benchmark_params", {}))
    return run_evaluation(
        benchmark="terminal_bench",
        harness=harness,
        model="none",
        environment="docker",
        benchmark_params=params,
        environment_params={"labels": TEST_LABELS},
        task_concurrency=4,
        progress="none",
        log_level="WARNING",
        results_dir=str(tmp / "results"),
        data_dir=str(tmp / "data"),
        overrides=list(overrides),
        execution_params={"artifacts": {"save": ["/logs/verifier"]}},
        **kw,
    )


def rows(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The full per-task rows (results.jsonl: the summary's rows plus error_class and attempt_dir)."""
    lines = Path(result["paths"]["results"]).read_text().splitlines()
    assert len(lines) == len(result["summary"]["tasks"])
    return {row["task_id"]: row for row in map(json.loads, lines)}


def agent_info(row: dict[str, Any]) -> dict[str, Any]:
    return json.loads((Path(row["attempt_dir"]) / "result.json").read_text())["agent"]


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory):
    return evaluate(tmp_path_factory.mktemp("oracle"), "oracle")


@pytest.fixture(scope="module")
def nop_run(tmp_path_factory):
    return evaluate(tmp_path_factory.mktemp("nop"), "nop")


def test_oracle_scores_one_and_the_no_reward_task_is_a_verifier_error(oracle_run):
    by_id = rows(oracle_run)
    assert sorted(by_id) == sorted(VALID_TB2 + ["no-reward"])  # broken-conflict was skipped
    for tid in VALID_TB2:
        assert (by_id[tid]["status"], by_id[tid]["reward"], by_id[tid]["resolved"]) == ("completed", 1.0, True)
    assert by_id["multi-reward"]["rewards"] == {"reward": 1.0, "exists": 1.0, "valid_json": 1.0, "count": 1.0}
    bad = by_id["no-reward"]
    assert (bad["status"], bad["reward"], bad["error_class"]) == ("error", None, "verifier")
    assert "no reward file" in bad["error"]["message"]
    m = oracle_run["metrics"]
    assert m["errors_by_class"]["verifier"] == 1 and m["n_errors"] == 1
    assert (m["mean_reward"], m["mean_reward_denominator"]) == (0.75, 4)  # the error counts as 0 out of 4
    assert (m["mean_reward_valid"], m["n_valid_rewards"]) == (1.0, 3)
    skipped = json.loads(Path(oracle_run["paths"]["skipped_tasks"]).read_text())
    assert len(skipped) == 1 and skipped[0]["task_id"] == "broken-conflict"
    assert skipped[0]["path"].endswith("broken-conflict/task.toml") and skipped[0]["field"] == "task.toml"
    assert "memory='1G' (1024 MB) conflicts with memory_mb=2048" in skipped[0]["reason"]
    assert session_containers() == []


def test_nop_scores_zero(nop_run):
    by_id = rows(nop_run)
    for tid in VALID_TB2:
        assert (by_id[tid]["status"], by_id[tid]["reward"]) == ("completed", 0.0), by_id[tid]
    assert by_id["multi-reward"]["rewards"] == {"reward": 0.0, "exists": 0.0, "valid_json": 0.0, "count": 0.0}
    assert by_id["no-reward"]["error_class"] == "verifier"
    m = nop_run["metrics"]
    assert (m["mean_reward"], m["mean_reward_denominator"], m["errors_by_class"]["verifier"]) == (0.0, 4, 1)


# --------------------------------------------------------------------------- agreement with FORMATS.md C4


def published_rule(verifier_dir: Path) -> dict[str, float] | None:
    """The documented reward contract, written independently of agentcompass: reward.json (a flat object of
    finite numbers, or one number) takes precedence over reward.txt (one float); anything else is invalid."""
    json_file, txt_file = verifier_dir / "reward.json", verifier_dir / "reward.txt"
    if json_file.is_file():
        try:
            value = json.loads(json_file.read_text())
        except ValueError:
            return None
        values = value if isinstance(value, dict) else {"reward": value}
        ok = values and all(type(v) in (int, float) and math.isfinite(v) for v in values.values())
        return {k: float(v) for k, v in values.items()} if ok else None
    if txt_file.is_file():
        try:
            number = float(txt_file.read_text().strip())
        except ValueError:
            return None
        return {"reward": number} if math.isfinite(number) else None
    return None


@pytest.mark.parametrize("which", ["oracle", "nop"])
def test_grades_agree_with_the_published_reward_rules(which, oracle_run, nop_run):
    result = oracle_run if which == "oracle" else nop_run
    for tid, row in rows(result).items():
        verifier_dir = Path(row["attempt_dir"]) / "artifacts" / "logs" / "verifier"  # downloaded by the run
        assert (verifier_dir / "test-stdout.txt").is_file(), tid
        expected = published_rule(verifier_dir)
        if expected is None:
            assert row["reward"] is None and row["error_class"] == "verifier", tid
        else:
            assert row["rewards"] == expected and row["reward"] == expected["reward"], tid
    both = Path(rows(result)["multi-reward"]["attempt_dir"]) / "artifacts" / "logs" / "verifier"
    assert (both / "reward.txt").read_text().strip() == "0" and (both / "reward.json").is_file()  # json won


# --------------------------------------------------------------------------- isolation, resources, timeouts


def test_agent_sees_logs_but_no_tests_or_solution_and_the_task_resources(tmp_path):
    result = evaluate(
        tmp_path,
        "nop",
        overrides=[f"harness._target_={HARNESSES}.EnvProbeHarness"],
        benchmark_params={"sample_ids": ["hello-file", "fix-script"]},
    )
    by_id = rows(result)
    for memory_mb, row in ((1024, by_id["hello-file"]), (512, by_id["fix-script"])):
        seen = agent_info(row)["info"]["seen"]
        assert (seen["/tests"], seen["/solution"]) == ("0", "0"), seen
        assert (seen["/logs/agent"], seen["/logs/verifier"], seen["cwd"]) == ("1", "1", "/app"), seen
        assert int(seen["memory"]) == memory_mb * 1024 * 1024, seen  # from task.toml
        quota, period = (int(x) for x in seen["cpu"].split())
        assert quota == period, seen  # cpus = 1
        assert (row["status"], row["reward"]) == ("completed", 0.0)  # graded after the probe


def test_prebuilt_docker_image_without_dockerfile(tmp_path):
    for harness, reward in (("oracle", 1.0), ("nop", 0.0)):
        result = evaluate(
            tmp_path / harness, harness, dataset=TB2_SPECIAL, benchmark_params={"sample_ids": ["prebuilt-image"]}
        )
        row = rows(result)["prebuilt-image"]
        assert (row["status"], row["reward"]) == ("completed", reward), row
        environment = json.loads((Path(row["attempt_dir"]) / "result.json").read_text())["environment"]
        assert "agentcompass/base:bookworm" in json.dumps(environment)


def test_agent_timeout_is_still_verified(tmp_path):
    result = evaluate(
        tmp_path,
        "nop",
        dataset=TB2_SPECIAL,
        overrides=[f"harness._target_={HARNESSES}.SleepHarness"],
        benchmark_params={"sample_ids": ["already-done"]},
    )
    row = rows(result)["already-done"]
    assert (row["exit_status"], row["limit_hit"]) == ("agent_timeout", "agent_timeout")
    assert (row["status"], row["reward"]) == ("completed", 1.0)
    phases = json.loads((Path(row["attempt_dir"]) / "result.json").read_text())["phases"]
    assert 1.5 <= phases["agent"] < 15  # task.toml [agent] timeout_sec=2
    overridden = evaluate(
        tmp_path / "override",
        "nop",
        dataset=TB2_SPECIAL,
        overrides=[f"harness._target_={HARNESSES}.SleepHarness", "+harness.sleep_s=3", "execution.timeouts.agent=10"],
        benchmark_params={"sample_ids": ["already-done"]},
    )
    row = rows(overridden)["already-done"]
    assert (row["exit_status"], row["reward"]) == ("completed", 1.0)  # 10 s overrides the 2 s


# --------------------------------------------------------------------------- sources and Terminal-Bench 1


def test_git_repository_source_is_cloned_then_cached(tmp_path, task_repo):
    params = {"repo_url": task_repo.url, "revision": task_repo.first, "sample_ids": ["hello-file"]}
    first = evaluate(tmp_path, dataset=None, benchmark_params=params)
    assert rows(first)["hello-file"]["reward"] == 1.0
    source = json.loads(Path(first["paths"]["dataset_source"]).read_text())
    assert (source["commit"], source["reused"]) == (task_repo.first, False)
    shutil.rmtree(task_repo.bare)  # offline from now on
    second = evaluate(tmp_path, dataset=None, benchmark_params=params)
    assert rows(second)["hello-file"]["reward"] == 1.0
    again = json.loads(Path(second["paths"]["dataset_source"]).read_text())
    assert (again["path"], again["reused"]) == (source["path"], True)


@pytest.mark.parametrize("harness,reward", [("oracle", 1.0), ("nop", 0.0)])
def test_terminal_bench_1_tasks(tmp_path, harness, reward):
    result = evaluate(tmp_path, harness, dataset=TB1_TASKS)
    by_id = rows(result)
    assert sorted(by_id) == ["tb1-hello", "tb1-keys"]
    for tid, row in by_id.items():
        assert (row["status"], row["reward"]) == ("completed", reward), (tid, row)
    details = json.loads((Path(by_id["tb1-keys"]["attempt_dir"]) / "result.json").read_text())["grade"]["details"]
    statuses = sorted(details["tests"].values())
    assert statuses == (["passed"] * 3 if reward else ["failed", "passed", "passed"])  # SKIPPED, XFAIL pass
