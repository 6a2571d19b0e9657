"""Framework overhead: 1,000 synthetic tasks with the nop harness at concurrency 32, and CLI start-up time.

    python bench/overhead.py [--tasks 1000] [--concurrency 32] [--repeats 3]

Each measurement runs in a fresh subprocess (clean peak RSS). Printed beside in-run baselines: a bare asyncio
semaphore loop over the same number of coroutines, and `python -c pass` for start-up.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, resource, sys, time, tempfile
n, conc, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
t0, c0 = time.perf_counter(), time.process_time()
if mode == "framework":
    from agentcompass import run_evaluation
    r = run_evaluation(benchmark="synthetic", harness="nop", model="none", environment="memory",
                       benchmark_params={"n_tasks": n}, task_concurrency=conc, progress="none",
                       log_level="WARNING", results_dir=tempfile.mkdtemp(prefix="ac-bench-"))
    assert r["metrics"]["n_tasks"] == n and r["metrics"]["n_errors"] == 0
else:
    import asyncio
    async def main():
        sem = asyncio.Semaphore(conc)
        async def one(i):
            async with sem:
                await asyncio.sleep(0)
        await asyncio.gather(*(one(i) for i in range(n)))
    asyncio.run(main())
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"wall_s": wall, "cpu_s": cpu, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure(n: int, conc: int, mode: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(n), str(conc), mode], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def startup(cmd: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    fw = [measure(a.tasks, a.concurrency, "framework") for _ in range(a.repeats)]
    base = [measure(a.tasks, a.concurrency, "baseline") for _ in range(a.repeats)]
    med = {k: statistics.median(r[k] for r in fw) for k in fw[0]}
    bmed = {k: statistics.median(r[k] for r in base) for k in base[0]}
    cpu_ms = (med["cpu_s"] - bmed["cpu_s"]) * 1000 / a.tasks
    print(
        f"{a.tasks} synthetic tasks, nop harness, memory environment, concurrency {a.concurrency}, "
        f"median of {a.repeats}"
    )
    print(f"  framework: wall {med['wall_s']:.2f} s, CPU {med['cpu_s']:.2f} s, peak RSS {med['rss_mb']:.0f} MB")
    print(
        f"  baseline (bare asyncio loop): wall {bmed['wall_s']:.3f} s, CPU {bmed['cpu_s']:.3f} s, "
        f"peak RSS {bmed['rss_mb']:.0f} MB"
    )
    print(
        f"  CPU per attempt above baseline: {cpu_ms:.2f} ms (aim <= 2 ms); "
        f"total CPU incl. imports per attempt: {med['cpu_s'] * 1000 / a.tasks:.2f} ms"
    )
    help_s = startup([sys.executable, "-m", "agentcompass", "--help"], 7)
    py_s = startup([sys.executable, "-c", "pass"], 7)
    print(
        f"  `agentcompass --help`: {help_s * 1000:.0f} ms median (python -c pass: {py_s * 1000:.0f} ms, "
        f"ratio {help_s / py_s:.1f}x; aim < 500 ms)"
    )


if __name__ == "__main__":
    with tempfile.TemporaryDirectory():
        main()
