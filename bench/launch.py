"""Orchestration throughput: 4 requests x 250 trivial tasks on one pool of 32 slots; and composition.

    python bench/launch.py [--requests 4] [--tasks 250] [--concurrency 32] [--sleep 0.05] [--repeats 3]
    python bench/launch.py --compose 200 [--repeats 3]

``--compose N``: an orchestration of N requests (each its own benchmark parameters) is resolved (every request
composed with Hydra and validated), nothing run; printed: CPU ms per request (``time.process_time``, median of
the repeats), beside the in-run baseline of one plain Hydra ``compose`` call of the same config tree.

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


def compose_cpu_ms(n: int) -> float:
    """CPU ms per request to resolve an orchestration of ``n`` requests (nothing runs)."""
    from agentcompass._launch import resolve_orchestration

    spec = {
        "name": "compose",
        "defaults": {"environment": {"id": "memory"}, "harness": {"id": "nop"}},
        "requests": [{"name": f"r{i}", "benchmark": {"id": "synthetic", "n_tasks": i + 1}} for i in range(n)],
    }
    t0 = time.process_time()
    orch = resolve_orchestration(spec)
    cpu = time.process_time() - t0
    assert all(job.error is None for job in orch.jobs), [job.error for job in orch.jobs if job.error]
    return cpu / n * 1000


def hydra_compose_cpu_ms(repeats: int = 10) -> float:
    """The baseline: one plain Hydra compose (initialize_config_dir + compose) of the same request, CPU ms."""
    from hydra import compose, initialize_config_dir

    from agentcompass._config import conf_dir

    overrides = ["benchmark=synthetic", "harness=nop", "model=none", "environment=memory"]
    t0 = time.process_time()
    for _ in range(repeats):
        with initialize_config_dir(str(conf_dir()), version_base=None, job_name="bench"):
            compose(config_name="config", overrides=overrides)
    return (time.process_time() - t0) / repeats * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--compose", type=int, default=0, help="resolve an orchestration of N requests, run nothing")
    ap.add_argument("--requests", type=int, default=4)
    ap.add_argument("--tasks", type=int, default=250)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--sleep", type=float, default=0.05)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    if a.compose:
        per = statistics.median(compose_cpu_ms(a.compose) for _ in range(a.repeats))
        base = hydra_compose_cpu_ms()
        print(f"compose {a.compose} requests, median of {a.repeats}: {per:.2f} ms CPU per request")
        print(f"  baseline: one plain Hydra compose {base:.2f} ms CPU (ratio {per / base:.3f}x)")
        return
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
