"""launch(): one pool for every request, failures isolated, inheritance rules, CLI, dry run, async use."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading

import pytest
import yaml

from agentcompass import OrchestrationDefaults, OrchestrationSpec, RunRequestSpec, RunTimeoutError, async_launch, launch
from agentcompass._launch.spec import compose_input, merged_request
from agentcompass.errors import ConfigError
from tests.helpers import ProbeHarness

PROBE = {"id": "nop", "_target_": "tests.helpers.ProbeHarness", "sleep_s": 0.05, "fail_times": 1, "error": "sandbox"}


def three_requests(**defaults_extra) -> OrchestrationSpec:
    return OrchestrationSpec(
        name="three",
        task_concurrency=3,
        defaults=OrchestrationDefaults(
            benchmark={"id": "demo"},
            harness=PROBE,
            environment={"id": "local"},
            execution={"max_retries": 1},
            **defaults_extra,
        ),
        requests=[
            RunRequestSpec(name="r1"),
            RunRequestSpec(name="r2", benchmark={"limit": 4}),
            RunRequestSpec(name="r3", harness={"sleep_s": 0.02}),
        ],
    )


def test_one_pool_for_all_requests_and_retries(tmp_path):
    events = []
    result = launch(three_requests(), results_dir=str(tmp_path), progress="none", on_progress=events.append)
    assert result.status == "completed", {k: v.error for k, v in result.requests.items()}
    assert ProbeHarness.global_max == 3  # reached across requests...
    assert result.pool["max_running"] == 3  # ...and never exceeded (measured by the pool)
    n = {k: v.result["metrics"] for k, v in result.requests.items()}
    assert n["r1"]["n_tasks"] == 7 and n["r2"]["n_tasks"] == 4 and n["r3"]["n_tasks"] == 7
    assert all(m["n_retries"] == m["n_tasks"] and m["n_errors"] == 0 for m in n.values())
    assert {e.request for e in events} == {"r1", "r2", "r3"}
    assert sum(e.kind == "request_finished" for e in events) == 3
    for outcome in result.requests.values():
        assert outcome.paths["run_dir"].startswith(str(tmp_path / outcome.name))


def test_a_failing_request_does_not_discard_the_others(tmp_path):
    spec = three_requests()
    spec.requests[1].benchmark = {"id": "nosuch"}
    finished = []
    result = launch(spec, results_dir=str(tmp_path), progress="none", on_request_finished=finished.append)
    assert result.status == "failed"
    bad = result.requests["r2"]
    assert bad.status == "failed" and "unknown benchmark 'nosuch'" in bad.error and bad.result is None
    for name in ("r1", "r3"):
        ok = result.requests[name]
        assert ok.status == "completed" and ok.result["metrics"]["n_tasks"] == 7
        assert (tmp_path / name).is_dir()
    assert sorted(o.name for o in finished) == ["r1", "r2", "r3"]


def test_inheritance_rules():
    spec = OrchestrationSpec(
        defaults=OrchestrationDefaults(
            benchmark={"id": "synthetic", "n_tasks": 5, "limit": 2},
            harness="oracle",
            model={"id": "m-default", "base_url": "http://127.0.0.1:9/v1", "params": {"temperature": 0, "top_p": 1}},
            execution={"max_retries": 2, "retry_pattern_list": ["a", "b"]},
            runtime={"reuse": True},
            output={"run_name": "shared"},
        ),
        requests=[
            RunRequestSpec(
                name="x",
                benchmark={"id": "demo", "limit": 1},
                model={"params": {"top_p": 0.5}},
                execution={"retry_pattern_list": ["c"]},
                runtime={"reuse": False},
            ),
            RunRequestSpec(name="y"),
        ],
    )
    x = merged_request(spec, spec.requests[0])
    assert x["benchmark"] == {"id": "demo", "n_tasks": 5, "limit": 1}  # id replaced, other keys merge
    assert x["model"]["params"] == {"temperature": 0, "top_p": 0.5}  # nested dicts merge
    assert x["model"]["id"] == "m-default" and x["harness"] == {"id": "oracle"}
    assert x["execution"] == {"max_retries": 2, "retry_pattern_list": ["c"]}  # lists are replaced
    assert x["runtime"] == {"reuse": False}  # a request overrides the default
    y = merged_request(spec, spec.requests[1])
    assert y["benchmark"] == {"id": "synthetic", "n_tasks": 5, "limit": 2} and y["output"]["run_name"] == "shared"
    inp = compose_input(spec, spec.requests[1])
    assert inp.choices["benchmark"] == "synthetic" and inp.explicit["runtime"]["task_concurrency"] == 4


@pytest.mark.parametrize(
    "bad,match",
    [
        ({"version": 2, "requests": [{"name": "a"}]}, "version"),
        ({"requests": []}, "requests"),
        ({"requests": [{"name": "a"}, {"name": "a"}]}, "used twice"),
        ({"requests": [{"benchmark": "demo"}]}, "name"),
        (
            {"defaults": {"execution": {"task_concurrency": 3}}, "requests": [{"name": "a"}]},
            r"defaults\.execution\.task_concurrency=3: .*task_concurrency is orchestration-level only",
        ),
        (
            {"requests": [{"name": "a", "execution": {"task_concurrency": 3}}]},
            r"requests\.0\.execution\.task_concurrency=3: .*orchestration-level",
        ),
        ({"requests": [{"name": "a"}], "bogus": 1}, "unknown key 'bogus'"),
    ],
)
def test_invalid_specs(bad, match):
    from agentcompass._launch import resolve_orchestration

    with pytest.raises(ConfigError, match=match):
        resolve_orchestration(bad)


def _write(tmp_path, spec: dict) -> str:
    path = tmp_path / "orch.yaml"
    path.write_text(yaml.safe_dump(spec))
    return str(path)


ORCH = {
    "version": 1,
    "name": "cli",
    "task_concurrency": 4,
    "defaults": {
        "harness": {"id": "oracle"},
        "environment": {"id": "memory"},
        "benchmark": {"id": "synthetic", "n_tasks": 3},
    },
    "requests": [{"name": "a"}, {"name": "b", "harness": {"id": "nop"}}],
}


def cli(*args):
    return subprocess.run([sys.executable, "-m", "agentcompass", *args], capture_output=True, text=True, timeout=300)


def test_cli_launch_dry_run_and_exit_codes(tmp_path):
    out = tmp_path / "out"
    path = _write(tmp_path, ORCH)
    proc = cli("launch", path, "--dry-run", "--results-dir", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "--- request a" in proc.stdout and "tasks: 3" in proc.stdout and "valid" in proc.stdout
    assert not out.exists()  # a dry run creates nothing
    proc = cli("launch", path, "--results-dir", str(out), "--run-id", "same-id", "--progress", "none")
    assert proc.returncode == 0, proc.stderr
    assert (out / "a" / "same-id" / "summary.json").is_file() and (out / "b" / "same-id").is_dir()
    bad = dict(ORCH, requests=[{"name": "a"}, {"name": "c", "benchmark": {"id": "nosuch"}}])
    proc = cli("launch", _write(tmp_path, bad), "--results-dir", str(out / "2"), "--progress", "none")
    assert proc.returncode == 1 and "unknown benchmark 'nosuch'" in proc.stdout
    assert json.load(open(out / "2" / "a" / next((out / "2" / "a").iterdir()).name / "summary.json"))
    proc = cli("launch", _write(tmp_path, {"version": 3, "requests": [{"name": "a"}]}))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "version" in proc.stderr


def test_a_dry_run_names_only_the_run_directories_the_run_will_use(tmp_path):
    out, path = tmp_path / "out", _write(tmp_path, ORCH)

    def outputs(*extra: str) -> list[str]:
        proc = cli("launch", path, "--dry-run", "--results-dir", str(out), *extra)
        assert proc.returncode == 0, proc.stderr
        return [ln.split(": ", 1)[1] for ln in proc.stdout.splitlines() if ln.startswith("output: ")]

    fresh = outputs()  # a new run's id is made when it starts: the dry run cannot know it
    assert fresh == [str(out / name / "<a new run id, made when the run starts>") for name in ("a", "b")]
    assert outputs("--run-id", "fixed") == [str(out / name / "fixed") for name in ("a", "b")]
    assert cli("launch", path, "--results-dir", str(out), "--progress", "none").returncode == 0
    made = [str(next((out / name).iterdir())) for name in ("a", "b")]
    assert outputs("--reuse") == made  # the directories the reuse continues
    assert cli("launch", path, "--results-dir", str(out), "--progress", "none", "--reuse").returncode == 0
    assert [str(p) for name in ("a", "b") for p in (out / name).iterdir()] == made


def test_cli_reuse_applies_to_every_request(tmp_path):
    out = tmp_path / "out"
    path = _write(tmp_path, ORCH)
    assert cli("launch", path, "--results-dir", str(out), "--progress", "none").returncode == 0
    proc = cli("launch", path, "--results-dir", str(out), "--progress", "none", "--reuse")
    assert proc.returncode == 0, proc.stderr
    assert len(list((out / "a").iterdir())) == 1  # reused, no new run directory


def test_timeout_keeps_finished_requests(tmp_path):
    spec = OrchestrationSpec(
        task_concurrency=4,
        defaults=OrchestrationDefaults(environment="memory", benchmark={"id": "synthetic"}),
        requests=[
            RunRequestSpec(name="fast", harness="oracle", benchmark={"n_tasks": 2}),
            RunRequestSpec(
                name="slow",
                harness={"id": "nop", "_target_": "tests.helpers.KeyboardCrashHarness"},
                benchmark={"n_tasks": 4},
            ),
        ],
    )
    with pytest.raises(RunTimeoutError) as info:
        launch(spec, results_dir=str(tmp_path), timeout_seconds=1.5, cleanup_grace_seconds=1, progress="none")
    result = info.value.result
    assert result.status == "timeout"
    assert result.requests["fast"].status == "completed" and result.requests["slow"].status == "timeout"
    assert result.requests["slow"].result["metrics"]["n_tasks"] == 2  # the two tasks that finished are kept


def test_async_launch_in_a_running_loop_and_launch_from_threads(tmp_path):
    spec = OrchestrationSpec(
        defaults=OrchestrationDefaults(
            environment="memory", harness="oracle", benchmark={"id": "synthetic", "n_tasks": 3}
        ),
        requests=[RunRequestSpec(name="p"), RunRequestSpec(name="q")],
    )

    async def inside_loop():
        return await async_launch(spec, results_dir=str(tmp_path / "async"), progress="none")

    assert asyncio.run(inside_loop()).status == "completed"
    results = []
    threads = [
        threading.Thread(
            target=lambda i=i: results.append(launch(spec, results_dir=str(tmp_path / f"t{i}"), progress="none"))
        )
        for i in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.status for r in results] == ["completed"] * 3


def test_run_multirun_sweeps_through_the_launcher(tmp_path):
    proc = cli(
        "run",
        "synthetic",
        "oracle",
        "none",
        "--env",
        "memory",
        "--results-dir",
        str(tmp_path),
        "--progress",
        "none",
        "-m",
        "benchmark.n_tasks=1,2",
        "harness=oracle,nop",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("=== ") == 4 and "harness=nop" in proc.stdout
    assert len(list((tmp_path / "synthetic__nop__none").iterdir())) == 2


def test_analysis_is_written_for_each_request(tmp_path):
    spec = OrchestrationSpec(
        defaults=OrchestrationDefaults(
            environment="memory",
            harness="oracle",
            benchmark={"id": "synthetic", "n_tasks": 2},
            execution={"enable_analysis": True},
        ),
        requests=[RunRequestSpec(name="p"), RunRequestSpec(name="q", harness="nop")],
    )
    result = launch(spec, results_dir=str(tmp_path), progress="none")
    for outcome in result.requests.values():
        assert outcome.status == "completed"
        assert (tmp_path / outcome.name).is_dir() and "analysis" in outcome.paths
        assert json.load(open(outcome.paths["analysis"]))
