"""Framework overhead per attempt: trivial attempts at 1k / 10k / 100k tasks, beside a bare asyncio loop.

    python bench/overhead.py [--sizes 1000,10000,100000] [--concurrency 32] [--repeats 3] [--repeats-large 1]

The measured command is the user's: ``agentcompass run synthetic nop none --env memory
benchmark.n_tasks=N --task-concurrency 32 --progress none`` (a fresh process each time, its results in a
temporary directory), timed from outside (start-up included) and inside (``run_evaluation`` alone, from the
same process's ``-X importtime``-free clock: the child prints it). Sides, alternated in every round so that the
machine's load weighs on both alike:

- ``framework``: the command above;
- ``baseline``: a bare asyncio loop in a fresh process: N coroutines under ``asyncio.Semaphore(32)``, each
  awaiting ``asyncio.sleep(0)`` (the least a pool of attempts can cost), and ``python -c pass`` for the start-up.

Printed per size (median over the rounds; sizes >= 100k use ``--repeats-large`` rounds): the wall time of the
command and of the run inside it, the per-attempt time (run time / N) and the marginal per-attempt time between
sizes (its change from one size to the next: flat means O(1) per attempt, nothing quadratic), the CPU time and
the peak RSS, beside the baseline's. Nothing is asserted: the figures depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FRAMEWORK = r"""
import atexit, json, resource, sys, time
t0, c0 = time.perf_counter(), time.process_time()
import agentcompass._sdk.evaluate as ev
inner = {}
real = ev.run_evaluation
def timed(**kw):
    s = time.perf_counter()
    try:
        return real(**kw)
    finally:
        inner["run_s"] = time.perf_counter() - s
ev.run_evaluation = timed
import agentcompass._sdk as sdk
sdk.run_evaluation = timed
def report():  # the program's own exit (entry: exit handlers, then the process ends)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"inner_s": inner.get("run_s", wall), "cpu_s": cpu, "rss_mb": rss}))
atexit.register(report)
sys.argv[0] = "agentcompass"
from agentcompass._cli.main import entry
entry()
"""
BASELINE = r"""
import asyncio, json, resource, sys, time
n, conc = int(sys.argv[1]), int(sys.argv[2])
t0, c0 = time.perf_counter(), time.process_time()
async def main():
    sem = asyncio.Semaphore(conc)
    async def one(i):
        async with sem:
            await asyncio.sleep(0)
    await asyncio.gather(*(one(i) for i in range(n)))
asyncio.run(main())
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"inner_s": wall, "cpu_s": cpu, "rss_mb": rss}))
"""


def child(code: str, args: list[str], cwd: str, env: dict[str, str] | None = None) -> dict:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd, env=env)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"child failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return {"wall_s": wall, **json.loads(out.stdout.strip().splitlines()[-1])}


def framework(n: int, conc: int, repo: str, env: dict[str, str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="ac-bench-overhead-") as tmp:
        argv = ["run", "synthetic", "nop", "none", "--env", "memory", f"benchmark.n_tasks={n}"]
        argv += ["--task-concurrency", str(conc), "--progress", "none", "--results-dir", tmp, "--log-level", "WARNING"]
        return child(FRAMEWORK, argv, repo, env)


def child_env(data_dir: str) -> dict[str, str]:
    """The children's environment: a data directory of this run's own (so the first command of each size composes
    its config with Hydra, and the later ones find it kept: ``_config/compose_cache.py``), and byte-code written
    and used as an installed package's is (``PYTHONDONTWRITEBYTECODE`` dropped)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["AGENTCOMPASS_DATA_DIR"] = data_dir
    return env


def med(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--repeats-large", type=int, default=1, help="rounds for sizes of 100k tasks and more")
    ap.add_argument("--repo", default=str(REPO), help="the checkout whose agentcompass runs (default: this one)")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    print(f"agentcompass from {a.repo}; load average at the start {os.getloadavg()[0]:.2f}")
    data_dir = tempfile.mkdtemp(prefix="ac-bench-overhead-data-")
    env = child_env(data_dir)
    subprocess.run([sys.executable, "-m", "compileall", "-q", "agentcompass"], cwd=a.repo, env=env, check=True)
    rows = []
    for n in sizes:
        fw, base, start = [], [], []
        cold = framework(n, a.concurrency, a.repo, env)  # its config not yet kept: composed by Hydra
        for _ in range(a.repeats_large if n >= 100_000 else a.repeats):
            fw.append(framework(n, a.concurrency, a.repo, env))
            base.append(child(BASELINE, [str(n), str(a.concurrency)], a.repo, env))
            start.append(child("import json; print(json.dumps({'inner_s': 0, 'cpu_s': 0, 'rss_mb': 0}))", [], a.repo))
        rows.append((n, fw, base, start))
        print(
            f"  {n:>7} tasks, first command (config composed by Hydra): {cold['wall_s']:.2f} s, run "
            f"{cold['inner_s']:.2f} s, CPU {cold['cpu_s']:.2f} s",
            flush=True,
        )
        print(
            f"  {n:>7} tasks ({len(fw)} rounds): command {med(fw, 'wall_s'):7.2f} s, run {med(fw, 'inner_s'):7.2f} s, "
            f"{med(fw, 'inner_s') / n * 1000:6.3f} ms per attempt; CPU {med(fw, 'cpu_s'):6.2f} s, "
            f"RSS {med(fw, 'rss_mb'):5.0f} MB | baseline loop {med(base, 'inner_s'):6.3f} s "
            f"({med(base, 'inner_s') / n * 1000:.4f} ms per attempt), python start-up {med(start, 'wall_s'):.3f} s; "
            f"load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    print(
        f"\nconcurrency {a.concurrency}; per attempt = run time / tasks; marginal = the change in run time "
        "between sizes / the change in tasks (flat: O(1) per attempt)"
    )
    for (n0, fw0, _, _), (n1, fw1, _, _) in zip(rows, rows[1:], strict=False):
        marginal = (med(fw1, "inner_s") - med(fw0, "inner_s")) / (n1 - n0) * 1000
        print(f"  {n0:>7} -> {n1:>7}: marginal {marginal:.3f} ms per attempt")
    first = rows[0]
    print(
        f"  {first[0]} tasks: command {med(first[1], 'wall_s'):.2f} s = "
        f"{med(first[1], 'wall_s') / med(first[3], 'wall_s'):.1f}x python start-up + loop "
        f"({med(first[3], 'wall_s') + med(first[2], 'inner_s'):.2f} s, the in-run floor); aim <= 1.0 s on an idle "
        f"machine of this size"
    )
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
