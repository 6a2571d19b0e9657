"""A real two-node Ray cluster on this machine for the executor tests, and helpers reading their runs."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
COIN = "agentcompass.testing.coin_harness.CoinHarness"
NODE_CPUS = 2


def coin(**params: Any) -> list[str]:
    """Overrides selecting the coin harness (over the oracle) with these fields."""
    return [f"harness._target_={COIN}", *(f"+harness.{k}={json.dumps(v)}" for k, v in params.items())]


def max_overlap(spans: list[tuple[float, float]]) -> int:
    """The most intervals open at one instant."""
    edges = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans], key=lambda x: (x[0], x[1]))
    peak = current = 0
    for _, delta in edges:
        current += delta
        peak = max(peak, current)
    return peak


def results_of(result: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The run's results.jsonl rows and the result.json of each row's final attempt."""
    rows = [json.loads(line) for line in Path(result["paths"]["results"]).read_text().splitlines()]
    return rows, [json.loads((Path(r["attempt_dir"]) / "result.json").read_text()) for r in rows]


@dataclass
class Nodes:
    cluster: Any
    worker: Any
    ids: list[str] = field(default_factory=list)

    @property
    def address(self) -> str:
        return self.cluster.address

    def _refresh(self) -> None:
        self.ids = [self.cluster.head_node.node_id, self.worker.node_id]

    def worker_pids(self) -> set[int]:
        """The processes of the worker node: its raylet and every process below it (Ray's worker processes)."""
        roots = {info.process.pid for info in self.worker.all_processes.get("raylet", [])}
        parents: dict[int, int] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError, ValueError, IndexError):
                parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        found, grew = set(roots), True
        while grew:
            new = {pid for pid, ppid in parents.items() if ppid in found} - found
            found, grew = found | new, bool(new)
        return found

    def wait_for_an_attempt_on_the_worker(self, calls_log: Path, within_s: float, timeout: float = 120) -> None:
        """Until a line of the coin harness's ``calls_log`` says that an attempt started on the worker node less
        than ``within_s`` seconds ago (so it is still in its sleep)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pids, now = self.worker_pids(), time.time()
            lines = [ln.split() for ln in (calls_log.read_text().splitlines() if calls_log.exists() else [])]
            if any(int(ln[3]) in pids and now - float(ln[4]) < within_s for ln in lines if ln[-1] != "cancelled"):
                return
            time.sleep(0.05)
        raise AssertionError(f"no attempt started on the worker node within {timeout}s")

    def kill_worker(self) -> None:
        """Kill the worker node (its raylet and every worker process on it), as a machine that dies."""
        self.cluster.remove_node(self.worker, allow_graceful=False)

    def add_worker(self) -> None:
        self.worker = self.cluster.add_node(num_cpus=NODE_CPUS)
        self.cluster.wait_for_nodes()
        self._refresh()

    def wait_for_results(self, results: Path, at_least: int, timeout: float = 180) -> dict[tuple[str, int], dict]:
        """The (task, sample) rows of the run under ``results`` once it has ``at_least`` of them."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            files = list(results.glob("*/*/results.jsonl"))
            lines = files[0].read_text().splitlines() if files else []
            if len(lines) >= at_least:
                rows = [json.loads(line) for line in lines]
                return {(r["task_id"], r["sample"]): r for r in rows}
            time.sleep(0.05)
        raise AssertionError(f"fewer than {at_least} results under {results} after {timeout}s")


@contextlib.contextmanager
def ray_cluster() -> Iterator[Nodes]:
    """A head node and a worker node of NODE_CPUS CPUs each, whose processes import this checkout; this
    process is connected to it (runs reuse the connection, so worker processes stay warm between tests)."""
    import ray
    from ray.cluster_utils import Cluster

    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(REPO), *([saved] if saved else [])])
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": NODE_CPUS})
    try:
        worker = cluster.add_node(num_cpus=NODE_CPUS)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, logging_level="WARNING")
        nodes = Nodes(cluster, worker)
        nodes._refresh()
        yield nodes
    finally:
        ray.shutdown()
        cluster.shutdown()
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
