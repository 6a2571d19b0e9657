"""What the Ray executor costs: synthetic attempts of a fixed length, the local executor vs local Ray clusters.

    python bench/ray.py [--attempts 200] [--sleep 0.5] [--concurrency 8] [--cpus 8] [--nodes 1,2] [--repeats 3]
                        [--repo CHECKOUT]

Both executors run the same request (synthetic benchmark, a harness that sleeps ``--sleep`` seconds, the memory
environment) with the same pool (``--concurrency``). For each node count in ``--nodes`` a cluster
(``ray.cluster_utils.Cluster``: a head node and ``nodes - 1`` worker nodes sharing ``--cpus`` CPUs) is started;
a first Ray run warms its worker processes (printed as "cold"), then the local and the Ray executor take turns,
``--repeats`` runs each, so that the load of the machine weighs on both alike. Printed per node count: the
median wall time of each executor, the ideal ``attempts x sleep / concurrency``, and where Ray's extra time goes:

- per attempt: the median and mean of the attempts' ``dispatch`` phase (the time an attempt held its slot outside
  its own run: scheduling, transfers, the stream), the figure to keep near zero;
- per run: what is left of the extra wall time once the dispatch phases are taken out (their mean x attempts /
  pool: connecting, the first build of the components in each worker process, the last attempts' tail);
- both as one figure: the extra wall time times the pool over the attempts.
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


def on_cluster(nodes: int, a: argparse.Namespace) -> dict:
    import ray
    from ray.cluster_utils import Cluster

    per_node = max(1, a.cpus // nodes)
    t0 = time.perf_counter()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": per_node})
    for _ in range(nodes - 1):
        cluster.add_node(num_cpus=per_node)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, logging_level="WARNING")
    started = time.perf_counter() - t0
    address = {"address": cluster.address}
    try:
        cold = one_run(a.attempts, a.sleep, a.concurrency, address)[0]
        local, remote, dispatch = [], [], []
        for _ in range(a.repeats):
            local.append(one_run(a.attempts, a.sleep, a.concurrency, None)[0])
            wall, d = one_run(a.attempts, a.sleep, a.concurrency, address)
            remote.append(wall)
            dispatch.append((statistics.median(d), statistics.mean(d)))
    finally:
        ray.shutdown()
        cluster.shutdown()
    return {"nodes": nodes, "per_node": per_node, "started": started, "cold": cold, "local": local,
            "remote": remote, "dispatch": dispatch}  # fmt: skip


def report(r: dict, a: argparse.Namespace) -> None:
    ideal = a.attempts * a.sleep / a.concurrency
    lw, rw = statistics.median(r["local"]), statistics.median(r["remote"])
    d, mean = (statistics.median(x[i] for x in r["dispatch"]) for i in (0, 1))
    runs = lambda xs: ", ".join(f"{x:.2f}" for x in xs)  # noqa: E731
    print(
        f"\n{r['nodes']} node(s) x {r['per_node']} CPUs (started in {r['started']:.1f} s); {a.attempts} attempts "
        f"of {a.sleep} s, pool {a.concurrency}, ideal {ideal:.2f} s"
    )
    print(f"  local executor  median {lw:6.2f} s  ({lw / ideal:.3f}x ideal)  runs: {runs(r['local'])}")
    print(
        f"  ray executor    median {rw:6.2f} s  ({rw / lw:.3f}x local)  runs: {runs(r['remote'])}; cold {r['cold']:.2f}"
    )
    print(
        f"  per attempt (dispatch phase) median {d * 1000:6.1f} ms, mean {mean * 1000:6.1f} ms   runs (median/mean): "
        f"{', '.join(f'{x * 1000:.1f}/{y * 1000:.1f}' for x, y in r['dispatch'])}"
    )
    print(
        f"  per run (extra wall time less the mean dispatch phases) {rw - lw - a.attempts * mean / a.concurrency:.2f} s"
    )
    print(
        f"  both as one figure: (ray - local) x pool / attempts  {(rw - lw) * a.concurrency / a.attempts * 1000:7.1f}"
        f" ms per attempt (cold run: {(r['cold'] - lw) * a.concurrency / a.attempts * 1000:.1f} ms)"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--attempts", type=int, default=200)
    ap.add_argument("--sleep", type=float, default=0.5)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--cpus", type=int, default=8, help="Ray CPUs in all, split evenly over the nodes")
    ap.add_argument("--nodes", default="1,2", help="node counts to measure, comma-separated")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--repo", default=str(REPO), help="the checkout whose agentcompass runs (default: this one)")
    a = ap.parse_args()
    os.environ["PYTHONPATH"] = os.pathsep.join([a.repo, *filter(None, [os.environ.get("PYTHONPATH")])])
    sys.path.insert(0, a.repo)
    import agentcompass

    print(f"agentcompass from {Path(agentcompass.__file__).parent}; load average at the start {os.getloadavg()[0]:.2f}")
    for nodes in (int(x) for x in a.nodes.split(",")):
        report(on_cluster(nodes, a), a)
        print(f"  load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
