"""What the Ray executor costs: 200 synthetic attempts of 0.5 s each, local executor vs a 2-node local cluster.

    python bench/ray.py [--attempts 200] [--sleep 0.5] [--concurrency 8] [--cpus-per-node 4] [--repeats 3]

Both executors run the same request (synthetic benchmark, a harness that sleeps ``--sleep`` seconds, the memory
environment) with the same pool (``--concurrency``). The cluster (``ray.cluster_utils.Cluster``: a head node and
a worker node of ``--cpus-per-node`` CPUs, started once) is reused by every repeat; the first Ray repeat pays
for starting the worker processes. Printed: the median wall time of each executor over the repeats, the ideal
``attempts x sleep / concurrency``, the per-attempt overhead Ray adds (the extra wall time times the
concurrency, over the attempts), the median of the attempts' ``dispatch`` phase (time in the slot outside
the attempt's own run: scheduling, transfers) and what is left of the extra wall time once the dispatch
phases are taken out (a fixed cost per run: the services actor's start, building components on the workers).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE, REPO = Path(__file__).resolve().parent, Path(__file__).resolve().parents[1]
# this file is named ray.py: its directory must not be searched before the ray package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]


def one_run(n: int, sleep: float, conc: int, ray: dict | None) -> tuple[float, list[float]]:
    from agentcompass import run_evaluation

    execution = {"executor": "ray", "ray": ray} if ray else {}
    t0 = time.perf_counter()
    result = run_evaluation(
        benchmark="synthetic",
        harness="oracle",
        model="none",
        environment="memory",
        benchmark_params={"n_tasks": n},
        task_concurrency=conc,
        progress="none",
        log_level="WARNING",
        results_dir=tempfile.mkdtemp(prefix="ac-bench-ray-"),
        overrides=["harness._target_=agentcompass.testing.sleep_harness.SleepHarness", f"+harness.sleep_s={sleep}"],
        execution_params=execution,
    )
    wall = time.perf_counter() - t0
    assert result["metrics"]["n_samples"] == n and result["metrics"]["n_errors"] == 0, result["metrics"]
    dispatch = [
        json.loads(p.read_text())["phases"].get("dispatch", 0.0)
        for p in Path(result["paths"]["tasks"]).rglob("result.json")
    ]
    return wall, dispatch


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--attempts", type=int, default=200)
    ap.add_argument("--sleep", type=float, default=0.5)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--cpus-per-node", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    os.environ["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    sys.path.insert(0, str(REPO))
    import ray
    from ray.cluster_utils import Cluster

    t0 = time.perf_counter()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": a.cpus_per_node})
    cluster.add_node(num_cpus=a.cpus_per_node)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, logging_level="WARNING")
    started = time.perf_counter() - t0
    try:
        local = [one_run(a.attempts, a.sleep, a.concurrency, None)[0] for _ in range(a.repeats)]
        remote, dispatch = [], []
        for _ in range(a.repeats):
            wall, d = one_run(a.attempts, a.sleep, a.concurrency, {"address": cluster.address})
            remote.append(wall)
            dispatch.append(statistics.median(d))
    finally:
        ray.shutdown()
        cluster.shutdown()
    ideal = a.attempts * a.sleep / a.concurrency
    lw, rw = statistics.median(local), statistics.median(remote)
    print(
        f"{a.attempts} attempts of {a.sleep}s, pool {a.concurrency}; cluster of 2 nodes x {a.cpus_per_node} CPUs "
        f"started in {started:.1f}s"
    )
    print(f"ideal wall time             {ideal:8.2f} s")
    print(f"local executor (median/{a.repeats})   {lw:8.2f} s   runs: {', '.join(f'{x:.2f}' for x in local)}")
    print(f"ray executor   (median/{a.repeats})   {rw:8.2f} s   runs: {', '.join(f'{x:.2f}' for x in remote)}")
    print(
        f"overhead Ray adds per attempt  {(rw - lw) * a.concurrency / a.attempts * 1000:8.1f} ms "
        f"(extra wall time x pool / attempts; first run, cold workers: "
        f"{(remote[0] - lw) * a.concurrency / a.attempts * 1000:.1f} ms)"
    )
    d = statistics.median(dispatch)
    print(
        f"median dispatch phase          {d * 1000:8.1f} ms (per run: {', '.join(f'{x * 1000:.1f}' for x in dispatch)})"
    )
    print(
        f"fixed cost per run (rest)      {rw - lw - a.attempts * d / a.concurrency:8.2f} s "
        f"(the services actor's start, connection, component build on the workers)"
    )


if __name__ == "__main__":
    main()
