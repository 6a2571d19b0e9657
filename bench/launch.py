"""Orchestration throughput: 4 requests x 250 trivial tasks on one pool of 32 slots.

    python bench/launch.py [--requests 4] [--tasks 250] [--concurrency 32] [--sleep 0.05] [--repeats 3]

Each attempt "works" for --sleep seconds (SleepHarness on the synthetic benchmark, memory environment).
Printed: wall time, pool utilisation (mean busy slots / pool size from the first attempt's start), the largest
number of attempts running at once, and the ideal wall time (tasks x sleep / slots) as the in-run baseline.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time


def one(requests: int, tasks: int, conc: int, sleep: float) -> tuple[float, float, int]:
    from agentcompass import OrchestrationDefaults, OrchestrationSpec, RunRequestSpec, launch

    spec = OrchestrationSpec(
        name="bench",
        task_concurrency=conc,
        defaults=OrchestrationDefaults(
            benchmark={"id": "synthetic", "n_tasks": tasks},
            environment="memory",
            harness={"id": "nop", "_target_": "agentcompass.testing.sleep_harness.SleepHarness", "sleep_s": sleep},
        ),
        requests=[RunRequestSpec(name=f"r{i}") for i in range(requests)],
    )
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        result = launch(spec, results_dir=tmp, progress="none", log_level="WARNING")
        wall = time.perf_counter() - t0
    assert result.status == "completed"
    return wall, result.pool["utilisation"], result.pool["max_running"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=4)
    ap.add_argument("--tasks", type=int, default=250)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--sleep", type=float, default=0.05)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    runs = [one(a.requests, a.tasks, a.concurrency, a.sleep) for _ in range(a.repeats)]
    wall = statistics.median(r[0] for r in runs)
    util = statistics.median(r[1] for r in runs)
    ideal = a.requests * a.tasks * a.sleep / a.concurrency
    print(
        f"{a.requests} requests x {a.tasks} tasks, {a.sleep * 1000:.0f} ms per attempt, pool {a.concurrency}, "
        f"median of {a.repeats}"
    )
    print(
        f"  wall {wall:.2f} s (ideal {ideal:.2f} s, ratio {wall / ideal:.2f}x), utilisation {util:.3f} "
        f"(aim >= 0.9), max running {max(r[2] for r in runs)}"
    )


if __name__ == "__main__":
    main()
