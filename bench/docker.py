"""Docker path at the physical limit: the full attempt flow beside a raw Docker SDK loop, and where the time goes.

    python bench/docker.py [--tasks 20] [--concurrency 4] [--repeats 3]

The task set: ``--tasks`` copies of a one-file Terminal-Bench-format task (a Dockerfile ``FROM`` the base image
that copies one file; ``solution/solve.sh`` writes ``/app/out.txt``; ``tests/test.sh`` writes the reward), each
in its own directory (so each has its own build context and image tag; the first build is reused by the others).
Sides, alternated in each of ``--repeats`` rounds after a warm-up that builds the image:

- ``full flow``: ``run_evaluation(benchmark=terminal_bench, harness=oracle, environment=docker)`` of the set at
  ``--concurrency`` (every attempt's phases: open, setup, solution upload + run, tests upload + verifier, reward
  read, close, result files); every reward must be 1.
- ``baseline``: a plain loop of Docker SDK calls doing the work the attempt contract requires, with the same
  parallelism, on the image of the task: create + start, the solution's exec (the setup's ``mkdir`` and
  ``solve.sh``'s command), the upload of the tests (``put_archive``), the verifier's exec (``tests/test.sh``, then
  the reward read in the same exec) and remove; nothing else (no exit-code inspection: the outputs are checked).
- ``baseline, upload on stdin``: the same, with the tests' archive written to the verifier exec's stdin
  (``tar -x`` there) instead of ``put_archive``: one engine call fewer, as the flow itself uploads; the least
  this work costs through the engine's API, printed as a second ratio.
- ``one task``: ``run_evaluation`` of one task of the set (concurrency 1), beside one baseline iteration.

Printed: wall time of each side (median, each round beside) and the ratio full flow / baseline (aim <= 1.1x); one
task end to end (aim <= 0.8 s); the median of each attempt phase (from result.json); every Docker API call an
attempt makes (calls per attempt, median ms, ms per attempt; from the provider's thread pool, in which every
blocking SDK call runs, plus the exec output streams read by the event loop); the timeline of the one-task
attempt; and the CPU of this process (the driver) per attempt of the full flow. Needs scripts/ensure_docker.sh.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# This file is named docker.py: keep its folder off sys.path so `import docker` finds the Docker SDK.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

BASE = "agentcompass/base:bookworm"  # present locally (the default base image may need a pull)
DOCKERFILE = f"ARG BASE_IMAGE={BASE}\nFROM ${{BASE_IMAGE}}\nWORKDIR /app\nCOPY task.txt /app/task.txt\n"
COMMAND = "cat /app/task.txt > /app/out.txt && echo done >> /app/out.txt"
TEST_SH = (
    '#!/bin/bash\nif [ "$(cat /app/out.txt)" = "$(printf \'one-file task\\ndone\')" ]; then echo 1; '
    "else echo 0; fi > /logs/verifier/reward.txt\n"
)
LABELS = {"agentcompass.bench": "docker"}


@dataclass
class Calls:
    """Docker API calls recorded while a side runs: (name, start, duration) in perf_counter seconds."""

    records: list[tuple[str, float, float]] = field(default_factory=list)

    def add(self, name: str, start: float) -> None:
        self.records.append((name, start, time.perf_counter() - start))


CALLS: Calls | None = None  # the recorder of the side that runs now (None: not recording)


def instrument() -> None:
    """Record every blocking call of the docker provider (its thread pool) and every exec output stream."""
    from agentcompass.environments.docker import execstream
    from agentcompass.environments.docker.provider import DockerProvider

    run, pump = DockerProvider.run, execstream.FrameReader.pump

    async def timed_run(self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await run(self, fn, *args, **kwargs)
        finally:
            if CALLS is not None:
                CALLS.add(getattr(fn, "__name__", repr(fn)), start)

    async def timed_pump(self: Any, out: Any, err: Any, *args: Any, **kwargs: Any) -> None:
        start = time.perf_counter()
        try:
            return await pump(self, out, err, *args, **kwargs)
        finally:
            if CALLS is not None:
                CALLS.add("(exec output stream)", start)

    DockerProvider.run, execstream.FrameReader.pump = timed_run, timed_pump


def make_tasks(root: Path, n: int) -> Path:
    """``n`` copies of the one-file task as Terminal-Bench-format task directories."""
    base = root / "tb"
    for i in range(n):
        d = base / f"copy-{i:02d}"
        for sub in ("environment", "tests", "solution"):
            (d / sub).mkdir(parents=True)
        (d / "environment" / "Dockerfile").write_text(DOCKERFILE)
        (d / "environment" / "task.txt").write_text("one-file task\n")
        (d / "instruction.md").write_text("Copy /app/task.txt to /app/out.txt and append a line 'done'.\n")
        (d / "task.toml").write_text('version = "1.0"\n[agent]\ntimeout_sec = 60\n[verifier]\ntimeout_sec = 60\n')
        (d / "solution" / "solve.sh").write_text("#!/bin/bash\n" + COMMAND + "\n")
        (d / "tests" / "test.sh").write_text(TEST_SH)
    return base


@dataclass
class Run:
    wall_s: float
    n: int
    cpu_s: float = 0.0
    phases: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    calls: Calls = field(default_factory=Calls)
    image: str = ""
    outside: tuple[float, float] = (0.0, 0.0)


async def full_flow(dataset: Path, concurrency: int, sample_ids: list[str] | None = None) -> Run:
    """run_evaluation(terminal_bench, oracle, docker); every reward must be 1."""
    global CALLS
    from agentcompass import async_run_evaluation

    params: dict[str, Any] = {"dataset_path": str(dataset), "base_image": BASE}
    if sample_ids:
        params["sample_ids"] = sample_ids
    calls = Calls()
    with tempfile.TemporaryDirectory(prefix="ac-bench-runs-") as out:
        CALLS = calls
        cpu0, start = time.process_time(), time.perf_counter()
        try:
            r = await async_run_evaluation(
                benchmark="terminal_bench",
                harness="oracle",
                model="none",
                environment="docker",
                benchmark_params=params,
                environment_params={"labels": LABELS, "base_image": BASE},
                task_concurrency=concurrency,
                results_dir=out,
                progress="none",
                log_level="WARNING",
            )
        finally:
            CALLS = None
        end = time.perf_counter()
        run = Run(end - start, r["metrics"]["n_tasks"], time.process_time() - cpu0, calls=calls)
        if calls.records:  # the request's own time before the first and after the last Docker call
            run.outside = (calls.records[0][1] - start, end - max(t0 + seconds for _, t0, seconds in calls.records))
        assert r["metrics"]["pass_rate"] == 1.0, r["metrics"]
        for row in r["summary"]["tasks"]:
            attempt = Path(r["paths"]["tasks"]) / row["task_id"] / "sample-1" / "attempt-1"
            result = json.loads((attempt / "result.json").read_text())
            for name, seconds in result["phases"].items():
                run.phases[name].append(seconds)
            run.image = result["environment"].get("image", "")
    return run


def tests_archive() -> bytes:
    """The tests folder as the tar archive ``put_archive`` takes (``tests/test.sh``, executable)."""
    import io
    import tarfile

    buf, data = io.BytesIO(), TEST_SH.encode()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("tests/test.sh")
        info.size, info.mode, info.mtime = len(data), 0o755, int(time.time())
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


async def baseline(image: str, n: int, concurrency: int, stdin: bool = False) -> Run:
    """Plain Docker SDK, a thread per slot, ``n`` times: create + start, the solution's exec, the tests' upload
    (``put_archive``, or with ``stdin`` on the verifier exec's stdin), the verifier's exec (reward read in it),
    remove."""
    import socket

    import docker
    from docker.utils.socket import consume_socket_output, frames_iter

    api = docker.from_env(max_pool_size=max(10, concurrency * 2)).api
    run = Run(0.0, n)
    archive = tests_archive()

    def exec_(cid: str, cmd: list[str]) -> bytes:
        exec_id = timed("exec_create", api.exec_create, cid, cmd)["Id"]
        return timed("exec_start", api.exec_start, exec_id)

    def exec_stdin(cid: str, cmd: list[str], data: bytes) -> bytes:
        exec_id = timed("exec_create", api.exec_create, cid, cmd, stdin=True)["Id"]
        start = time.perf_counter()
        sock = api.exec_start(exec_id, socket=True)
        raw = getattr(sock, "_sock", sock)
        raw.sendall(data)
        raw.shutdown(socket.SHUT_WR)
        out = consume_socket_output(frames_iter(sock, tty=False))
        sock.close()
        run.calls.add("exec_start (stdin)", start)
        return out

    def timed(name: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            run.calls.add(name, start)

    def one(_: int) -> None:
        t0 = time.perf_counter()
        cid = timed(
            "create_container",
            api.create_container,
            image,
            command=["sleep", "infinity"],
            labels=dict(LABELS),
            host_config=api.create_host_config(init=True),
        )["Id"]
        timed("start", api.start, cid)
        solved = exec_(cid, ["bash", "-c", f"mkdir -p /logs/agent /logs/verifier && {COMMAND} && cat /app/out.txt"])
        verify = "bash /tests/test.sh && cat /logs/verifier/reward.txt"
        if stdin:
            reward = exec_stdin(cid, ["bash", "-c", f"tar -x -C / && {verify}"], archive)
        else:
            timed("put_archive", api.put_archive, cid, "/", archive)
            reward = exec_(cid, ["bash", "-c", verify])
        timed("remove_container", api.remove_container, cid, v=True, force=True)
        assert solved == b"one-file task\ndone\n" and reward == b"1\n", (solved, reward)
        run.phases["attempt"].append(time.perf_counter() - t0)

    start = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        await asyncio.gather(*(asyncio.wrap_future(pool.submit(one, i)) for i in range(n)))
    run.wall_s = time.perf_counter() - start
    api.close()
    return run


def _med(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def _walls(runs: list[Run]) -> str:
    return f"{_med([r.wall_s for r in runs]):6.2f} s   rounds {' '.join(f'{r.wall_s:.2f}' for r in runs)}"


def print_calls(title: str, runs: list[Run]) -> None:
    """Calls per attempt, median ms per call and ms per attempt of each call name, over ``runs``."""
    per: dict[str, list[float]] = defaultdict(list)
    for run in runs:
        for name, _, seconds in run.calls.records:
            per[name].append(seconds)
    attempts = sum(r.n for r in runs)
    print(f"\n{title}: calls per attempt, median ms, ms per attempt (summed over the attempt)")
    for name, values in sorted(per.items(), key=lambda kv: -sum(kv[1])):
        print(
            f"  {name:<24}{len(values) / attempts:6.2f}  {_med(values) * 1000:8.1f}  "
            f"{sum(values) * 1000 / attempts:8.1f}"
        )
    total = sum(len(v) for v in per.values()) / attempts
    print(f"  {'all':<24}{total:6.2f}")


def print_timeline(run: Run) -> None:
    """Every recorded call of a one-task run, in order: start offset and duration (ms)."""
    if not run.calls.records:
        return
    t0 = run.calls.records[0][1]
    print("\none-task attempt, call timeline (start ms from the first call, duration ms)")
    for name, start, seconds in sorted(run.calls.records, key=lambda r: r[1]):
        print(f"  {(start - t0) * 1000:7.1f}  {seconds * 1000:7.1f}  {name}")


def report(
    args: argparse.Namespace, full: list[Run], base: list[Run], low: list[Run], one: list[Run], one_base: list[Run]
) -> None:
    print(
        f"\n{args.tasks} tasks, concurrency {args.concurrency}, median of {args.repeats} rounds; "
        f"load average {os.getloadavg()[0]:.2f} (at the start {args.load0:.2f})"
    )
    print(f"  full flow     {_walls(full)}")
    print(f"  baseline      {_walls(base)}")
    print(f"  baseline, upload on stdin {_walls(low)}")
    ratio = _med([r.wall_s for r in full]) / _med([r.wall_s for r in base])
    low_ratio = _med([r.wall_s for r in full]) / _med([r.wall_s for r in low])
    print(
        f"  ratio full flow / baseline: {ratio:.2f}x (aim <= 1.1x); / the baseline with the upload on stdin: "
        f"{low_ratio:.2f}x"
    )
    print(
        f"  one task end to end: {_med([r.wall_s for r in one]):.3f} s (aim <= 0.8 s); raw SDK loop for one "
        f"task {_med([r.wall_s for r in one_base]):.3f} s; of the one task, before the first Docker call "
        f"{_med([r.outside[0] for r in one]) * 1000:.0f} ms, "
        f"after the last {_med([r.outside[1] for r in one]) * 1000:.0f} ms"
    )
    cpu_ms = _med([r.cpu_s * 1000 / r.n for r in full])
    print(f"  driver CPU per attempt (this process, threads included): {cpu_ms:.1f} ms")
    phases: dict[str, list[float]] = defaultdict(list)
    for run in full:
        for name, values in run.phases.items():
            phases[name].extend(values)
    print(
        "\nattempt phases of the full flow (median ms): "
        + ", ".join(f"{name} {_med(v) * 1000:.0f}" for name, v in phases.items())
    )
    base_ms = _med([v for r in base for v in r.phases["attempt"]]) * 1000
    print(f"baseline attempt (create .. remove, median ms): {base_ms:.0f}")
    print_calls("full flow, Docker calls", full)
    print_calls("baseline, Docker calls", base)
    print_calls("baseline with the upload on stdin, Docker calls", low)
    print_timeline(one[len(one) // 2])


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    args.load0 = os.getloadavg()[0]
    instrument()
    with tempfile.TemporaryDirectory(prefix="ac-bench-docker-") as tmp:
        dataset = make_tasks(Path(tmp), args.tasks)
        t0 = time.perf_counter()
        warm = await full_flow(dataset, args.concurrency)  # builds the image once, tags the copies
        print(f"warm-up (image build + {args.tasks} tasks): {time.perf_counter() - t0:.2f} s, image {warm.image}")
        full, base, low, one, one_base = [], [], [], [], []
        for i in range(args.repeats):
            order = [0, 1, 2] if i % 2 == 0 else [2, 1, 0]
            for side in order:
                if side == 0:
                    full.append(await full_flow(dataset, args.concurrency))
                elif side == 1:
                    base.append(await baseline(warm.image, args.tasks, args.concurrency))
                else:
                    low.append(await baseline(warm.image, args.tasks, args.concurrency, stdin=True))
            one.append(await full_flow(dataset, 1, ["copy-00"]))
            one_base.append(await baseline(warm.image, 1, 1))
    report(args, full, base, low, one, one_base)


if __name__ == "__main__":
    asyncio.run(main())
