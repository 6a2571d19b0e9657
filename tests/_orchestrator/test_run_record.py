"""The run directory stays honest: durations exclude the queue, attempt directories exist only for attempts that
started, run.json follows the run, a killed run's temporary files are swept, and one run has one live process."""

from __future__ import annotations

import json
import os
import signal
import socket
from pathlib import Path

from agentcompass import run_evaluation
from tests.run_support import read_json, run_cli, start_cli, wait_for

GATE = "tests.run_support.GateHarness"
SLEEP = "agentcompass.testing.sleep_harness.SleepHarness"


def test_durations_exclude_the_wait_for_a_slot(results_dir):
    # five 0.4 s attempts on one slot: each waited up to 1.6 s, but each lasted 0.4 s
    result = run_evaluation(
        benchmark="synthetic",
        harness="nop",
        model="none",
        environment="memory",
        overrides=[f"harness._target_={SLEEP}", "+harness.sleep_s=0.4", "benchmark.n_tasks=5"],
        task_concurrency=1,
        results_dir=str(results_dir),
        progress="none",
    )
    rows = [json.loads(line) for line in Path(result["paths"]["results"]).read_text().splitlines()]
    durations = sorted(r["duration_s"] for r in rows)
    queues = sorted(r["queue_s"] for r in rows)
    assert all(0.4 <= d < 0.9 for d in durations), durations
    assert queues[0] < 0.2 and queues[-1] >= 1.5, queues  # the last one waited for the four before it
    assert result["metrics"]["duration_s"]["max"] < 0.9 and result["metrics"]["duration_s"]["p90"] < 0.9
    for row in rows:  # result.json says the same
        attempt = read_json(Path(row["attempt_dir"]) / "result.json")
        assert (attempt["duration_s"], attempt["queue_s"]) == (row["duration_s"], row["queue_s"])


def _gated_run(tmp_path, *extra, gated=("syn-0", "syn-1")):
    return (
        "run",
        "synthetic",
        "nop",
        "none",
        "--env",
        "memory",
        "--results-dir",
        str(tmp_path / "out"),
        "--run-name",
        "gated",
        "--progress",
        "none",
        f"harness._target_={GATE}",
        "benchmark.n_tasks=6",
        f"+harness.gate={tmp_path / 'gate'}",
        f"+harness.gated={json.dumps(list(gated))}",
        f"+harness.log={tmp_path / 'agent.log'}",
        *extra,
    )


def test_kill_leaves_no_empty_attempt_dirs_and_run_json_follows_the_run(tmp_path):
    run_dir = tmp_path / "out" / "gated" / "r1"
    proc = start_cli(*_gated_run(tmp_path, "--run-id", "r1", "--task-concurrency", "2", gated=()))
    try:
        # two attempts hold the two slots and wait at the gate; the other four queue
        wait_for(
            lambda: (
                len((tmp_path / "agent.log").read_text().splitlines()) == 2
                if (tmp_path / "agent.log").exists()
                else False
            ),
            60,
            "two attempts at the gate",
        )
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    started = sorted(p.parent.parent.name for p in run_dir.glob("tasks/*/sample-1/attempt-*"))
    assert len(started) == 2 and sorted(p.name for p in run_dir.glob("tasks/*")) == started, started
    # the queued tasks have no directory at all
    assert read_json(run_dir / "run.json")["status"] == "running"
    (tmp_path / "gate").touch()
    out = run_cli(*_gated_run(tmp_path, "--reuse", "r1", "--task-concurrency", "2", gated=()))
    assert out.returncode == 0, out.stderr
    attempts = sorted(f"{p.parent.parent.name}/{p.name}" for p in run_dir.glob("tasks/*/sample-1/attempt-*"))
    # the four that never started begin at attempt-1; the two killed while running go on at attempt-2
    expected = sorted([f"syn-{i}/attempt-1" for i in range(6)] + [f"{t}/attempt-2" for t in started])
    assert attempts == expected, attempts
    rows = {r["task_id"]: r for r in map(json.loads, (run_dir / "results.jsonl").read_text().splitlines())}
    assert all(rows[t]["attempt_dir"].endswith("attempt-2") for t in started)
    assert sum(rows[t]["attempt_dir"].endswith("attempt-1") for t in rows) == 4


def test_run_json_is_rewritten_while_the_run_progresses(tmp_path):
    run_dir = tmp_path / "out" / "gated" / "r2"
    proc = start_cli(*_gated_run(tmp_path, "--run-id", "r2", "--task-concurrency", "6"))
    try:
        record = wait_for(
            lambda: (lambda r: r if r.get("n_finished") == 4 else None)(read_json(run_dir / "run.json")),
            30,
            "run.json to count the four ungated tasks",
        )
        assert record["status"] == "running" and record["n_tasks"] == 6 and record["n_errors"] == 0
        assert record["counts"] == {"infra": 0, "model": 0, "agent": 0, "verifier": 0, "config": 0}
        (tmp_path / "gate").touch()
        assert proc.wait(60) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    final = read_json(run_dir / "run.json")
    assert final["status"] == "completed" and final["n_finished"] == 6


def test_a_second_reuse_of_a_live_run_refuses_naming_its_holder(tmp_path):
    run_dir = tmp_path / "out" / "gated" / "r3"
    first = start_cli(*_gated_run(tmp_path, "--run-id", "r3", "--task-concurrency", "6"))
    wait_for(lambda: read_json(run_dir / "run.json").get("n_finished") == 4, 60, "the first run to hold two tasks")
    os.killpg(first.pid, signal.SIGKILL)  # killed: its lock is stale (dead pid)
    first.wait()
    # temporary files a kill during finalize would leave behind
    (run_dir / ".summary.json.k1ll3d.tmp").write_text("{")
    attempt = next(run_dir.glob("tasks/*/sample-1/attempt-1"))
    (attempt / ".result.json.k1ll3d.tmp").write_text("{")
    (tmp_path / "agent.log").unlink()
    reuse = start_cli(*_gated_run(tmp_path, "--reuse", "r3", "--task-concurrency", "6"))
    try:
        wait_for(lambda: (tmp_path / "agent.log").exists(), 60, "the first reuse to run attempts")
        assert not list(run_dir.rglob("*.k1ll3d.tmp"))  # swept once the reuse held the run
        second = run_cli(*_gated_run(tmp_path, "--reuse", "r3", "--task-concurrency", "6"), timeout=120)
        assert second.returncode == 2, (second.returncode, second.stderr)
        lines = [line for line in second.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, second.stderr
        assert f"run 'r3' is in use by pid {reuse.pid} on host {socket.gethostname()} since 20" in lines[0]
        (tmp_path / "gate").touch()
        assert reuse.wait(60) == 0, reuse.stderr.read()
    finally:
        if reuse.poll() is None:
            os.killpg(reuse.pid, signal.SIGKILL)
    runs = [line.split()[0] for line in (tmp_path / "agent.log").read_text().splitlines()]
    assert sorted(runs) == sorted(set(runs)), runs  # no task ran twice at once
    assert not (run_dir / "run.lock").exists()  # released at the end
    assert read_json(run_dir / "run.json")["status"] == "completed"
