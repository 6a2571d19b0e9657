"""What the Ray executor costs: synthetic attempts of a fixed length, the local executor vs local Ray clusters.

    python bench/ray.py [--attempts 200] [--sleep 0.5] [--concurrency 8] [--cpus 8] [--nodes 1,2] [--repeats 3]
                        [--repo CHECKOUT]

Both executors run the same request (synthetic benchmark, a harness that sleeps ``--sleep`` seconds, the memory
environment) with the same pool (``--concurrency``). For each node count in ``--nodes`` a cluster
(``ray.cluster_utils.Cluster``: a head node and ``nodes - 1`` worker nodes sharing ``--cpus`` CPUs) is started;
the floor runs (below), a first Ray run warms its worker processes (printed as "cold"), then the local and the Ray
executor take turns, ``--repeats`` runs each, so that the load of the machine weighs on both alike. Printed per
node count: the median wall time of each executor, the ideal ``attempts x sleep / concurrency``, and where Ray's
extra time goes:

- per attempt: the median and mean of the attempts' ``dispatch`` phase (the time an attempt held its slot outside
  its own run: scheduling, transfers, the stream), the figure to keep near zero;
- per run: what is left of the extra wall time once the dispatch phases are taken out (their mean x attempts /
  pool: connecting, the first build of the components in each worker process, the last attempts' tail);
- both as one figure: the extra wall time times the pool over the attempts;
- the driver's CPU per attempt (its process time over the run: Ray's threads in it included) of each executor.

The in-run floor is plain Ray on the same cluster: the same number of streaming tasks of the same length with the
same pool and resources, each streaming two small objects as a short attempt does (its first phases, then its
result), with nothing of agentcompass. It runs as a job of its own (a child process), so that its first run
starts its worker processes as a new ``agentcompass run`` does: that first run is its cold figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE, REPO = Path(__file__).resolve().parent, Path(__file__).resolve().parents[1]
# this file is named ray.py: its directory must not be searched before the ray package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]


def one_run(n: int, sleep: float, conc: int, ray: dict | None) -> tuple[float, list[float], float]:
    """``(wall time, every attempt's dispatch phase, the driver's CPU seconds per attempt)``."""
    from agentcompass import run_evaluation

    execution = {"executor": "ray", "ray": ray} if ray else {}
    with tempfile.TemporaryDirectory(prefix="ac-bench-ray-") as results_dir:  # removed after the figures are read
        c0, t0 = time.process_time(), time.perf_counter()
        result = run_evaluation(
            benchmark="synthetic",
            harness="oracle",
            model="none",
            environment="memory",
            benchmark_params={"n_tasks": n},
            task_concurrency=conc,
            progress="none",
            log_level="WARNING",
            results_dir=results_dir,
            overrides=["harness._target_=agentcompass.testing.sleep_harness.SleepHarness", f"+harness.sleep_s={sleep}"],
            execution_params=execution,
        )
        wall, cpu = time.perf_counter() - t0, (time.process_time() - c0) / n
        assert result["metrics"]["n_samples"] == n and result["metrics"]["n_errors"] == 0, result["metrics"]
        dispatch = [
            json.loads(p.read_text())["phases"].get("dispatch", 0.0)
            for p in Path(result["paths"]["tasks"]).rglob("result.json")
        ]
        return wall, dispatch, cpu


def _plain_task(sleep: float, item: dict):  # a short attempt's stream: its first phases, then its result
    yield [("event", {"phase": "agent"})]
    time.sleep(sleep)
    yield [("event", {"phase": "verify"}), ("result", item)]


def plain(a: argparse.Namespace) -> None:
    """The floor (a job of its own, in a child process): print ``{"cold": run, "runs": [run, ...]}``, each run
    ``[wall, median extra, mean extra, driver CPU per attempt]``."""
    import asyncio

    import ray

    ray.init(address=a.plain, logging_level="WARNING")
    fn = ray.remote(_plain_task).options(num_returns="streaming", num_cpus=1, max_retries=0)

    async def run() -> list[float]:
        sem, extra = asyncio.Semaphore(a.concurrency), []

        async def one(i: int) -> None:
            async with sem:
                t = time.monotonic()
                async for ref in fn.remote(a.sleep, {"task_id": f"task-{i}", "n": 1, "sample": 1}):
                    if ray.get(ref)[-1][0] == "result":
                        break
                extra.append(time.monotonic() - t - a.sleep)

        c0, t0 = time.process_time(), time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(a.attempts)))
        wall, cpu = time.perf_counter() - t0, (time.process_time() - c0) / a.attempts
        return [wall, statistics.median(extra), statistics.mean(extra), cpu]

    async def main() -> dict:
        return {"cold": await run(), "runs": [await run() for _ in range(a.repeats)]}

    print(json.dumps(asyncio.run(main())))
    ray.shutdown()


def floor(address: str, a: argparse.Namespace) -> dict:
    args = ["--plain", address, "--attempts", str(a.attempts), "--sleep", str(a.sleep)]
    args += ["--concurrency", str(a.concurrency), "--repeats", str(a.repeats)]
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


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
        base = floor(cluster.address, a)  # first: Ray stops idle worker processes beyond the CPUs of the node
        cold = one_run(a.attempts, a.sleep, a.concurrency, address)[0]
        local, remote, dispatch, cpu = [], [], [], {"local": [], "ray": []}
        for _ in range(a.repeats):
            wall, _d, c = one_run(a.attempts, a.sleep, a.concurrency, None)
            local.append(wall)
            cpu["local"].append(c)
            wall, d, c = one_run(a.attempts, a.sleep, a.concurrency, address)
            remote.append(wall)
            cpu["ray"].append(c)
            dispatch.append((statistics.median(d), statistics.mean(d)))
    finally:
        ray.shutdown()
        cluster.shutdown()
    return {"nodes": nodes, "per_node": per_node, "started": started, "cold": cold, "local": local,
            "remote": remote, "dispatch": dispatch, "cpu": cpu, "floor": base}  # fmt: skip


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
    fl = r["floor"]
    fm, fmean, fcpu = (statistics.median(x[i] for x in fl["runs"]) for i in (1, 2, 3))
    print(
        f"  plain Ray floor: per attempt median {fm * 1000:6.1f} ms, mean {fmean * 1000:6.1f} ms   runs (median/mean):"
        f" {', '.join(f'{x[1] * 1000:.1f}/{x[2] * 1000:.1f}' for x in fl['runs'])};"
        f" wall {runs(x[0] for x in fl['runs'])}; cold {fl['cold'][0]:.2f}"
    )
    print(
        f"  per run (extra wall time less the mean dispatch phases) {rw - lw - a.attempts * mean / a.concurrency:.2f} s"
    )
    print(
        f"  both as one figure: (ray - local) x pool / attempts  {(rw - lw) * a.concurrency / a.attempts * 1000:7.1f}"
        f" ms per attempt (cold run: {(r['cold'] - lw) * a.concurrency / a.attempts * 1000:.1f} ms; plain Ray's"
        f" {(fl['cold'][0] - ideal) * a.concurrency / a.attempts * 1000:.1f} ms over the ideal)"
    )
    lc, rc = (statistics.median(r["cpu"][k]) * 1000 for k in ("local", "ray"))
    print(f"  driver CPU per attempt: local {lc:.2f} ms, ray {rc:.2f} ms, plain Ray {fcpu * 1000:.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--attempts", type=int, default=200)
    ap.add_argument("--sleep", type=float, default=0.5)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--cpus", type=int, default=8, help="Ray CPUs in all, split evenly over the nodes")
    ap.add_argument("--nodes", default="1,2", help="node counts to measure, comma-separated")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--repo", default=str(REPO), help="the checkout whose agentcompass runs (default: this one)")
    ap.add_argument("--plain", metavar="ADDRESS", help=argparse.SUPPRESS)  # the floor's child process
    a = ap.parse_args()
    if a.plain:
        return plain(a)
    os.environ["PYTHONPATH"] = os.pathsep.join([a.repo, *filter(None, [os.environ.get("PYTHONPATH")])])
    sys.path.insert(0, a.repo)
    import agentcompass

    print(f"agentcompass from {Path(agentcompass.__file__).parent}; load average at the start {os.getloadavg()[0]:.2f}")
    for nodes in (int(x) for x in a.nodes.split(",")):
        report(on_cluster(nodes, a), a)
        print(f"  load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
