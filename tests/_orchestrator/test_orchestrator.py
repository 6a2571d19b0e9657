"""Concurrency, retries, timeouts, reuse and checkpoint resume, on the in-process synthetic benchmark."""

from __future__ import annotations

import json
import time

import pytest

from agentcompass import EvaluationFailedError, RunTimeoutError, run_evaluation
from tests.helpers import ProbeHarness

PROBE = "tests.helpers.ProbeHarness"


def run(results_dir, *overrides, failed=False, **kw):
    """run_evaluation on the synthetic benchmark; ``failed=True``: every task errs, the run must raise."""
    base = dict(
        benchmark="synthetic",
        harness="nop",
        model="none",
        environment="memory",
        results_dir=str(results_dir),
        progress="none",
    )
    base.update(kw)
    if not failed:
        return run_evaluation(overrides=[f"harness._target_={PROBE}", *overrides], **base)
    with pytest.raises(EvaluationFailedError) as info:
        run_evaluation(overrides=[f"harness._target_={PROBE}", *overrides], **base)
    assert info.value.result["metadata"]["status"] == "failed"
    return info.value.result


def test_concurrency_never_exceeds_task_concurrency_with_retries(results_dir):
    events = []
    result = run(
        results_dir,
        "benchmark.n_tasks=24",
        "+harness.sleep_s=0.02",
        "+harness.fail_times=1",
        "+harness.error=sandbox",
        task_concurrency=5,
        max_retries=2,
        on_progress=events.append,
    )
    probe = ProbeHarness.instances[0]
    assert probe.max_running == 5  # the limit is reached...
    m = result["metrics"]
    assert m["n_tasks"] == 24 and m["n_tries"] == 48 and m["n_retries"] == 24
    assert m["n_errors"] == 0 and m["mean_reward"] == 1.0
    # ... and never exceeded, counted from the progress events too
    running = peak = 0
    for e in events:
        running += {"attempt_started": 1, "attempt_finished": -1}.get(e.kind, 0)
        peak = max(peak, running)
    assert peak == 5
    assert sum(e.kind == "retry_scheduled" for e in events) == 24
    assert events[-1].kind == "request_finished"


def test_retry_pattern_list_and_max_retries(results_dir):
    # an untyped agent error is retried only when a pattern matches "<ErrorType>: <message>"
    r = run(
        results_dir,
        "benchmark.n_tasks=2",
        "+harness.fail_times=5",
        "+harness.message=rate limited",
        max_retries=2,
        retry_pattern_list=[r"AgentError: rate \w+"],
        task_concurrency=2,
        failed=True,
    )
    assert r["metrics"]["n_tries"] == 6  # 1 + 2 retries per task, then give up
    assert r["metrics"]["n_errors"] == 2 and r["metrics"]["errors_by_class"]["agent"] == 2
    row = r["summary"]["tasks"][0]
    assert row["status"] == "error" and row["attempts"] == 3 and "rate limited" in row["error"]["message"]
    # no matching pattern: no retry
    r = run(
        results_dir,
        "benchmark.n_tasks=2",
        "+harness.fail_times=1",
        max_retries=3,
        retry_pattern_list=["something else"],
        failed=True,
    )
    assert r["metrics"]["n_tries"] == 2 and r["metrics"]["n_errors"] == 2
    # matching pattern, one failure each: the retry succeeds and the task counts as completed
    r = run(results_dir, "benchmark.n_tasks=2", "+harness.fail_times=1", max_retries=3, retry_pattern_list=["flaky"])
    assert r["metrics"]["n_tries"] == 4 and r["metrics"]["n_errors"] == 0 and r["metrics"]["pass_rate"] == 1.0
    # a retry is not a sample: one sample per task, so no pass@k (and never one computed from retries)
    assert r["metrics"]["n_samples"] == 2 and r["metrics"]["n_retries"] == 2 and "pass_at_k" not in r["metrics"]


def test_timeout_raises_and_keeps_finished_results(results_dir):
    start = time.monotonic()
    with pytest.raises(RunTimeoutError) as info:
        run(
            results_dir,
            "benchmark.n_tasks=4",
            "harness._target_=tests.helpers.KeyboardCrashHarness",
            timeout_seconds=1,
            task_concurrency=4,
        )
    assert isinstance(info.value, TimeoutError)
    assert time.monotonic() - start < 20
    result = info.value.result
    assert result["metadata"]["status"] == "timeout"
    run_dir = result["paths"]["run_dir"]
    rows = [json.loads(line) for line in open(f"{run_dir}/results.jsonl")]
    assert sorted(r["task_id"] for r in rows) == ["syn-0", "syn-1"]
    assert all(r["reward"] == 1.0 for r in rows)
    assert json.load(open(f"{run_dir}/run.json"))["status"] == "timeout"


def test_reuse_skips_finished_tasks(results_dir, monkeypatch):
    monkeypatch.setenv("PROBE_FAIL_TASKS", "syn-1,syn-3")
    first = run(results_dir, "benchmark.n_tasks=4", run_name="r")
    assert first["metrics"]["n_errors"] == 2
    monkeypatch.setenv("PROBE_FAIL_TASKS", "")
    second = run(results_dir, "benchmark.n_tasks=4", run_name="r", reuse=True)
    assert ProbeHarness.instances[-1].calls == {"syn-1": 1, "syn-3": 1}  # only the unfinished tasks ran
    assert second["metadata"]["run_id"] == first["metadata"]["run_id"]
    assert second["metrics"]["n_errors"] == 0 and second["metrics"]["mean_reward"] == 1.0
    run_dir = second["paths"]["run_dir"]
    assert len(open(f"{run_dir}/results.jsonl").read().splitlines()) == 4
    # third reuse by explicit id: every task finished, nothing runs again
    third = run(results_dir, "benchmark.n_tasks=4", run_name="r", reuse=True, reuse_run_id=first["metadata"]["run_id"])
    assert ProbeHarness.instances[-1].calls == {}
    assert third["metrics"]["n_tasks"] == 4 and third["metrics"]["mean_reward"] == 1.0


def test_reuse_rejects_a_different_task_set_or_component(results_dir, capsys):
    from agentcompass.errors import ConfigError

    run(results_dir, "benchmark.n_tasks=2", run_name="r2")
    with pytest.raises(ConfigError, match="task set differs"):
        run(results_dir, "benchmark.n_tasks=3", run_name="r2", reuse=True)
    with pytest.raises(ConfigError, match=r"components differ.*harness.sleep_s: None -> 0.5"):
        run(results_dir, "benchmark.n_tasks=2", "+harness.sleep_s=0.5", run_name="r2", reuse=True)
    # concurrency and progress may change
    r = run(results_dir, "benchmark.n_tasks=2", run_name="r2", reuse=True, task_concurrency=1, progress="plain")
    assert r["metrics"]["n_tasks"] == 2


def test_checkpoint_resume_reverifies_only(results_dir):
    from pathlib import Path

    r = run(results_dir, "benchmark.n_tasks=3", run_name="cp")
    run_dir = Path(r["paths"]["run_dir"])
    # simulate a process killed after the agent phase of syn-1: result.json and its results row are gone
    (run_dir / "tasks/syn-1/sample-1/attempt-1/result.json").unlink()
    rows = [line for line in (run_dir / "results.jsonl").read_text().splitlines() if "syn-1" not in line]
    (run_dir / "results.jsonl").write_text("\n".join(rows) + "\n")
    r2 = run(results_dir, "benchmark.n_tasks=3", run_name="cp", reuse=True)
    assert ProbeHarness.instances[-1].calls == {}  # the agent did not run again
    result = json.loads((run_dir / "tasks/syn-1/sample-1/attempt-1/result.json").read_text())
    assert result["resumed_from_checkpoint"] is True and result["reward"] == 1.0
    assert r2["metrics"]["n_tasks"] == 3 and r2["metrics"]["mean_reward"] == 1.0
    # without checkpoint_resume the agent runs again, in a new attempt directory
    (run_dir / "tasks/syn-2/sample-1/attempt-1/result.json").unlink()
    rows = [line for line in (run_dir / "results.jsonl").read_text().splitlines() if "syn-2" not in line]
    (run_dir / "results.jsonl").write_text("\n".join(rows) + "\n")
    run(results_dir, "benchmark.n_tasks=3", run_name="cp", reuse=True, checkpoint_resume=False)
    assert ProbeHarness.instances[-1].calls == {"syn-2": 1}
    assert (run_dir / "tasks/syn-2/sample-1/attempt-2/result.json").is_file()


def test_result_shape_and_run_directory(results_dir):
    r = run(results_dir, "benchmark.n_tasks=3", run_name="shape", run_id="fixed-id")
    assert set(r) == {"metadata", "metrics", "summary", "paths"}
    for key in ("run_dir", "config", "results", "summary", "log", "tasks"):
        assert __import__("os").path.exists(r["paths"][key]), key
    meta = r["metadata"]
    assert meta["run_id"] == "fixed-id" and meta["status"] == "completed" and meta["benchmark"] == "synthetic"
    for name in (
        "n_tasks",
        "n_samples",
        "n_tries",
        "n_completed",
        "n_errors",
        "errors_by_class",
        "n_retries",
        "mean_reward",
        "mean_reward_valid",
        "pass_rate",
        "mean_reward_ci",
        "pass_rate_ci",
        "tokens",
        "cost_usd",
        "duration_s",
    ):
        assert name in r["metrics"], name
    summary = json.load(open(r["paths"]["summary"]))
    assert summary["metrics"] == r["metrics"]
    result = json.load(open(f"{r['paths']['tasks']}/syn-0/sample-1/attempt-1/result.json"))
    assert result["status"] == "completed" and set(result["phases"]) >= {"env_open", "agent", "verify", "close"}
    from agentcompass.errors import ConfigError

    with pytest.raises(ConfigError, match="already exists"):
        run(results_dir, "benchmark.n_tasks=3", run_name="shape", run_id="fixed-id")


def test_run_ids_are_unique_and_sortable():
    from agentcompass._orchestrator.record.store import new_run_id

    ids = [new_run_id() for _ in range(200)]
    assert len(set(ids)) == 200
    assert [i.split("-")[0] for i in ids] == sorted(i.split("-")[0] for i in ids)


def test_cancellation_closes_every_environment(tmp_path):
    """Ctrl-C / task cancellation: in-flight attempts are cancelled and their environments closed."""
    import asyncio

    from agentcompass import async_run_evaluation

    root = tmp_path / "workspaces"

    async def main():
        job = asyncio.ensure_future(
            async_run_evaluation(
                benchmark="demo",
                harness="nop",
                model="none",
                environment="local",
                results_dir=str(tmp_path / "r"),
                environment_params={"root_dir": str(root)},
                task_concurrency=7,
                progress="none",
                overrides=["harness._target_=agentcompass.testing.sleep_harness.SleepHarness", "+harness.sleep_s=60"],
            )
        )
        for _ in range(200):  # until every attempt has its workspace
            await asyncio.sleep(0.1)
            if root.is_dir() and len([p for p in root.iterdir() if p.is_dir()]) == 7:
                break
        assert len([p for p in root.iterdir() if p.is_dir()]) == 7
        job.cancel()
        with pytest.raises(asyncio.CancelledError):
            await job

    asyncio.run(main())
    assert [p for p in root.iterdir() if p.is_dir()] == []
    run_json = json.loads(next((tmp_path / "r").rglob("run.json")).read_text())
    assert run_json["status"] == "cancelled" and run_json["n_tasks"] == 7
