"""Repeated samples per task (``n_attempts``): the demo benchmark solved with a known probability per (task,
sample), pass@k against the exact expectation, retries that are never samples, and reuse of a run killed with
SIGKILL completing only the missing samples."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest

from agentcompass import run_evaluation
from agentcompass.testing.coin_harness import draw

REPO = Path(__file__).resolve().parents[2]
COIN = "agentcompass.testing.coin_harness.CoinHarness"
SEED, P, K = 2, 0.5, 3
DEMO = [
    "count-words",
    "fix-python-script",
    "fix-shell-script",
    "git-commit",
    "hello-file",
    "json-transform",
    "partial-credit",
]


def expected() -> tuple[dict[tuple[str, int], bool], dict[str, float]]:
    """The coin's outcome of every (task, sample), and pass@k computed exactly (fractions) from it."""
    solved = {(t, j): draw(SEED, t, j) < P for t in DEMO for j in range(1, K + 1)}
    counts = [sum(solved[(t, j)] for j in range(1, K + 1)) for t in DEMO]
    assert sorted(set(counts)) == [0, 1, 2, 3]  # the seed gives tasks solved 0, 1, 2 and 3 times out of 3
    at_k = {}
    for k in range(1, K + 1):
        exact = sum(Fraction(1) - Fraction(math.comb(K - c, k), math.comb(K, k)) for c in counts) / len(DEMO)
        at_k[str(k)] = round(float(exact), 6)
    return solved, at_k


def coin(**params) -> list[str]:
    return [
        f"harness._target_={COIN}",
        f"+harness.seed={SEED}",
        f"+harness.pass_probability={P}",
        *(f"+harness.{k}={json.dumps(v)}" for k, v in params.items()),
    ]


@pytest.fixture(scope="module")
def sampled(tmp_path_factory):
    """One demo run: 3 samples per task, the first attempt of every sample 1 fails and is retried."""
    results = tmp_path_factory.mktemp("samples")
    result = run_evaluation(
        benchmark="demo",
        harness="oracle",
        model="none",
        environment="local",
        results_dir=str(results),
        progress="none",
        log_level="WARNING",
        n_attempts=K,
        max_retries=1,
        task_concurrency=4,
        overrides=coin(fail_samples=[1]),
    )
    rows = [json.loads(line) for line in Path(result["paths"]["results"]).read_text().splitlines()]
    return result, rows


def test_pass_at_k_is_the_exact_expectation(sampled):
    result, rows = sampled
    solved, at_k = expected()
    m = result["metrics"]
    assert {(r["task_id"], r["sample"]): r["reward"] for r in rows} == {key: float(ok) for key, ok in solved.items()}
    assert m["pass_at_k"] == at_k
    assert m["n_tasks"] == 7 and m["n_samples"] == 21 and m["samples_per_task"] == 3
    assert m["mean_reward"] == at_k["1"] and m["mean_reward_denominator"] == 21
    means = [sum(solved[(t, j)] for j in range(1, K + 1)) / K for t in DEMO]
    mu = sum(means) / 7
    assert m["mean_reward_stderr"] == round(math.sqrt(sum((x - mu) ** 2 for x in means) / 6 / 7), 6)
    tasks = {row["task_id"]: row for row in result["summary"]["tasks"]}
    assert sorted(tasks) == DEMO
    for t in DEMO:
        assert [s["sample"] for s in tasks[t]["samples"]] == [1, 2, 3]
        assert tasks[t]["mean_reward"] == round(sum(solved[(t, j)] for j in (1, 2, 3)) / 3, 6)
        assert tasks[t]["n_passed"] == sum(solved[(t, j)] for j in (1, 2, 3))


def test_a_retry_is_never_a_sample(sampled):
    result, rows = sampled
    m = result["metrics"]
    assert m["n_tries"] == 28 and m["n_retries"] == 7 and m["n_errors"] == 0
    for t in DEMO:
        mine = sorted((r["sample"], r["attempts"]) for r in rows if r["task_id"] == t)
        assert mine == [(1, 2), (2, 1), (3, 1)]  # exactly 3 samples; sample 1 took 2 attempts
        task_dir = Path(result["paths"]["tasks"]) / t
        assert sorted(p.name for p in task_dir.iterdir()) == ["sample-1", "sample-2", "sample-3"]
        first = json.loads((task_dir / "sample-1" / "attempt-1" / "result.json").read_text())
        assert first["status"] == "error" and first["error_type"] == "SandboxError" and first["sample"] == 1
        assert sorted(p.name for p in (task_dir / "sample-1").iterdir()) == ["attempt-1", "attempt-2"]
        row = next(r for r in rows if r["task_id"] == t and r["sample"] == 1)
        assert row["attempt_dir"] == str(task_dir / "sample-1" / "attempt-2")
        assert [s for s, _ in row["attempt_outcomes"]] == ["error", "completed"]


def _cli(argv: list[str], **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-m", "agentcompass", *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        **kw,
    )


def _calls(log: Path) -> list[tuple[str, int]]:
    lines = log.read_text().splitlines() if log.is_file() else []
    return [(line.split()[0], int(line.split()[1])) for line in lines]


def test_reuse_after_sigkill_runs_only_the_missing_samples(tmp_path):
    solved, at_k = expected()
    calls = tmp_path / "calls.log"
    argv = [
        "run",
        "demo",
        "oracle",
        "none",
        "--env",
        "local",
        "-k",
        str(K),
        "--task-concurrency",
        "3",
        "--results-dir",
        str(tmp_path / "res"),
        "--run-name",
        "killed",
        "--progress",
        "none",
        *coin(sleep_s=0.4, calls_log=str(calls)),
    ]
    proc = _cli(argv)
    results = tmp_path / "res" / "killed"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        lines = list(results.glob("*/results.jsonl"))
        if lines and len(lines[0].read_text().splitlines()) >= 8:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    run_dir = next(results.iterdir())
    done = {(r["task_id"], r["sample"]) for r in map(json.loads, (run_dir / "results.jsonl").read_text().splitlines())}
    assert 8 <= len(done) < 21
    first_calls = _calls(calls)
    calls.unlink()
    again = _cli([*argv, "--reuse"])
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    second = _calls(calls)
    assert len(second) == len(set(second))  # every missing sample ran once...
    assert set(second) == {(t, j) for t in DEMO for j in range(1, K + 1)} - done  # ...and only those
    assert set(first_calls) >= done
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["metrics"]["pass_at_k"] == at_k and summary["metrics"]["n_samples"] == 21
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert {(r["task_id"], r["sample"]): r["reward"] for r in rows} == {k: float(v) for k, v in solved.items()}


def test_n_attempts_per_request_in_launch(tmp_path):
    from agentcompass import OrchestrationDefaults, OrchestrationSpec, RunRequestSpec, launch

    spec = OrchestrationSpec(
        name="samples",
        task_concurrency=3,
        defaults=OrchestrationDefaults(
            benchmark={"id": "synthetic", "n_tasks": 3}, harness={"id": "oracle"}, environment={"id": "memory"}
        ),
        requests=[RunRequestSpec(name="one"), RunRequestSpec(name="four", execution={"n_attempts": 4})],
    )
    result = launch(spec, results_dir=str(tmp_path), progress="none")
    assert result.status == "completed" and result.pool["max_running"] == 3
    one, four = (result.requests[n].result["metrics"] for n in ("one", "four"))
    assert (one["n_samples"], one["samples_per_task"], "pass_at_k" in one) == (3, 1, False)
    assert (four["n_samples"], four["samples_per_task"]) == (12, 4)
    assert four["pass_at_k"] == {"1": 1.0, "2": 1.0, "3": 1.0, "4": 1.0}


def test_requests_of_one_orchestration_share_one_executor(tmp_path):
    from agentcompass import OrchestrationDefaults, OrchestrationSpec, RunRequestSpec, launch
    from agentcompass.errors import ConfigError

    spec = OrchestrationSpec(
        defaults=OrchestrationDefaults(benchmark={"id": "synthetic", "n_tasks": 1}, environment={"id": "memory"}),
        requests=[RunRequestSpec(name="here"), RunRequestSpec(name="there", execution={"executor": "ray"})],
    )
    with pytest.raises(ConfigError, match=r"same executor.*got local, ray"):
        launch(spec, results_dir=str(tmp_path), progress="none")
    assert not (tmp_path / "here").exists()  # nothing ran


def test_the_local_executor_never_imports_ray(tmp_path):
    code = (
        "import sys\n"
        "from agentcompass._cli.main import main\n"
        f"code = main(['run', 'synthetic', 'oracle', 'none', '--env', 'memory', '--results-dir', {str(tmp_path)!r}, "
        "'--progress', 'none', '-k', '2'])\n"
        "print(code, sorted(m for m in sys.modules if m == 'ray' or m.startswith(('ray.', 'agentcompass._ray'))))"
    )
    res = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0 and res.stdout.strip().splitlines()[-1] == "0 []", res.stdout + res.stderr


def test_executor_ray_without_ray_names_the_install_command(tmp_path):
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "from agentcompass._cli.main import main\n"
        f"sys.exit(main(['run', 'demo', 'oracle', 'none', '--results-dir', {str(tmp_path)!r}, "
        "'--execution-params', '{\"executor\": \"ray\"}']))"
    )
    res = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 2, res.stderr
    assert "pip install 'agentcompass[ray]'" in res.stderr and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and not (tmp_path / "demo__oracle__none").exists()


@pytest.mark.parametrize(
    "bad,message",
    [
        ('{"n_attempts": 0}', "n_attempts=0: Input should be greater than or equal to 1"),
        ('{"executor": "spark"}', "executor='spark': Input should be 'local' or 'ray'"),
        (
            '{"ray": {"num_cpus": 1}}',
            "unknown key 'execution.ray.num_cpus'; valid keys: address, num_cpus_per_attempt, resources, runtime_env",
        ),
    ],
)
def test_bad_sample_and_executor_settings_are_one_line(tmp_path, bad, message):
    res = subprocess.run(
        [sys.executable, "-m", "agentcompass", "run", "--results-dir", str(tmp_path), "--execution-params", bad],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 2 and message in res.stderr, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
