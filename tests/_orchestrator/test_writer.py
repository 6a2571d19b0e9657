"""``record.writer.Writer``: writes run in the order they were asked for, inline while they are fast and in
the writer thread after a slow one; ``now`` waits for its own (and so every earlier) write and returns its result
or raises its error; ``flush`` waits for everything and raises the first error of a write nobody waited for, once."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agentcompass import EvaluationFailedError, run_evaluation
from agentcompass._orchestrator.record.writer import Writer

PARTS = "tests._orchestrator.policy_parts"
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("threaded", [True, False])
def test_order_results_and_errors(threaded):
    async def go() -> None:
        writer, done, loop_thread = Writer(slow_s=0 if threaded else 60), [], threading.get_ident()

        def write(i: int) -> int:
            assert (threading.get_ident() != loop_thread) is threaded  # in the thread, or inline
            done.append(i)
            return i * 10

        for i in range(200):
            writer.later(write, i)
        assert await writer.now(write, 200) == 2000
        assert done == list(range(201))  # now() came after every earlier write

        def broken() -> None:
            raise OSError("disk full")

        with pytest.raises(OSError, match="disk full"):
            await writer.now(broken)  # a waited-for write raises to its waiter...
        await writer.flush()  # ...and not again
        writer.later(broken)
        writer.later(write, 201)
        with pytest.raises(OSError, match="disk full"):
            await writer.flush()  # the unwaited one at the next flush, after the rest ran
        assert done[-1] == 201
        await writer.flush()  # once

    asyncio.run(go())


def test_a_slow_write_sends_the_later_ones_to_the_thread():
    """Inline while writes are fast; one slower than ``slow_s`` moves every later write to the thread, in order,
    also a write asked for while earlier ones still wait there."""

    async def go() -> None:
        writer, where, loop_thread = Writer(slow_s=0.05), [], threading.get_ident()

        def write(i: int, pause: float = 0.0) -> int:
            time.sleep(pause)
            where.append((i, threading.get_ident() == loop_thread))
            return i

        assert await writer.now(write, 0) == 0
        writer.later(write, 1, 0.1)  # slow: the last one inline
        assert writer.threaded
        for i in range(2, 50):
            writer.later(write, i, 0.001)
        assert await writer.now(write, 50) == 50
        await writer.flush()
        assert [i for i, _ in where] == list(range(51))
        assert [inline for _, inline in where] == [True, True] + [False] * 49

    asyncio.run(go())


def test_a_write_busy_computing_is_not_a_slow_disk():
    """Slow means waiting off the CPU (the disk): a write that computes for long (a garbage collection, a large
    encoding) stays inline. On a machine whose run queue is longer than twice its cores the computing thread waits
    for a core as long as it computes (the same as waiting on a disk), so there is nothing to measure."""
    if os.getloadavg()[0] > 2 * (os.cpu_count() or 1):
        pytest.skip(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: CPU time is not measurable")

    async def go() -> None:
        writer = Writer(slow_s=0.05)

        def busy() -> None:
            end = time.thread_time() + 0.2
            while time.thread_time() < end:
                pass

        await writer.now(busy)
        assert not writer.threaded

    asyncio.run(go())


def test_writes_go_to_the_thread_once_attempts_work_longer():
    """Inline while the run's attempts are short; after 32 whose agent and verifier phases take 20 ms on average,
    the thread (its hand-off is then a small part of an attempt); trivial attempts keep them inline."""

    async def go(work: float) -> bool:
        writer, loop_thread, where = Writer(), threading.get_ident(), []
        for _ in range(40):
            writer.attempt_took(work)
            await writer.now(lambda: where.append(threading.get_ident() == loop_thread))
        await writer.flush()
        return writer.threaded and where[:31] == [True] * 31 and not any(where[32:])

    assert asyncio.run(go(0.02)) is True
    assert asyncio.run(go(0.0001)) is False


def test_a_failed_write_stops_the_request_and_fails_it_naming_the_file(tmp_path):
    """Through a real run (CLI and SDK): the first attempt's result.json cannot be written; no agent runs after the
    failure is known (task concurrency 1: the second attempt's directory waits behind that write and is refused),
    the run ends ``failed`` with one line naming the file, and the record stays consistent."""
    args = [
        "synthetic",
        "nop",
        "none",
        f"harness._target_={PARTS}.UnwritableResultHarness",
        "--env",
        "memory",
        "benchmark.n_tasks=5",
        "--task-concurrency",
        "1",
        "--progress",
        "none",
        "--results-dir",
        str(tmp_path / "results"),
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "agentcompass", "run", *args], capture_output=True, text=True, cwd=REPO, timeout=300
    )
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "RecordWriteError" in proc.stderr and "result.json" in proc.stderr, proc.stderr
    [run_dir] = (tmp_path / "results").glob("*/*")
    ran = [p.parent.parent.parent.name for p in (run_dir / "tasks").glob("*/*/*/checkpoint.json")]
    assert ran == ["syn-0"]  # no agent ran after the failure: the next attempt stopped before its directory
    for other in (run_dir / "tasks").glob("*/*/*/result.json"):  # at most one, cancelled when the request stopped
        if other.is_file():
            assert json.loads(other.read_text())["error"] == "CancelledError: attempt cancelled"
    # the record stays consistent: no results line for a sample whose result.json is missing (reuse runs it again)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["metadata"]["status"] == "failed" and summary["summary"]["tasks"] == []
    assert not (run_dir / "results.jsonl").exists() or not (run_dir / "results.jsonl").read_text().strip()

    with pytest.raises(EvaluationFailedError, match=r"RecordWriteError: .*result\.json") as caught:
        run_evaluation(
            benchmark="synthetic",
            harness="nop",
            model="none",
            environment="memory",
            overrides=[f"harness._target_={PARTS}.UnwritableResultHarness"],
            benchmark_params={"n_tasks": 3},
            task_concurrency=1,
            progress="none",
            results_dir=str(tmp_path / "sdk"),
        )
    assert caught.value.result["metadata"]["status"] == "failed"
