"""The local environment's cost of containment: one command, and one environment's life.

    python bench/local.py [--execs 200] [--envs 30]

Printed beside an in-run baseline, each a median: a command (``bash -c true``) run by the environment (through its
supervisor, in its cgroup where there is one) against the same command started directly with
``asyncio.create_subprocess_exec`` in a session of its own with piped output (what the environment did before it
had a supervisor); and an environment's life (open + first command + close) against what that life cost before
the supervisor: a workspace made and removed, the same direct command, and the scan of ``/proc`` for the
workspace's marker that ``close`` made then.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentcompass.environments.local import LocalConfig, LocalProvider, fs, procs
from agentcompass.environments.local import cgroup as _cgroup
from agentcompass.interfaces import EnvSpec


async def direct(cmd: str) -> None:
    proc = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        cmd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    await proc.communicate()


async def timed(make) -> float:
    t0 = time.perf_counter()
    await make()
    return time.perf_counter() - t0


async def execs(provider: LocalProvider, n: int) -> tuple[list[float], list[float]]:
    env = await provider.open(EnvSpec(task_id="bench"))
    await env.exec("true")  # the supervisor starts with the first command
    ours, base = [], []
    for _ in range(n):  # interleaved, so that the machine's load falls on both alike
        ours.append(await timed(lambda: env.exec("true")))
        base.append(await timed(lambda: direct("true")))
    await env.close()
    return ours, base


async def life_before(root: str) -> None:
    ws = Path(tempfile.mkdtemp(prefix="bench-", dir=root))
    since = procs.boot_ticks() - 2
    await direct("true")
    await asyncio.to_thread(procs.kill_workspace_processes, ws, since)
    await asyncio.to_thread(fs.remove_tree, ws)


async def lives(provider: LocalProvider, n: int) -> tuple[list[float], list[float]]:
    async def life() -> None:
        env = await provider.open(EnvSpec(task_id="bench"))
        await env.exec("true")
        await env.close()

    ours, base = [], []
    for _ in range(n):
        ours.append(await timed(life))
        base.append(await timed(lambda: life_before(str(provider.root))))
    return ours, base


def show(what: str, ours: list[float], base: list[float]) -> None:
    a, b = statistics.median(ours) * 1000, statistics.median(base) * 1000
    print(f"{what:<44} {a:8.2f} ms   baseline {b:8.2f} ms   ratio {a / b:5.2f}   (+{a - b:.2f} ms)")


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--execs", type=int, default=200)
    ap.add_argument("--envs", type=int, default=30)
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="ac-bench-local-")
    print(f"cgroup v2 available: {_cgroup.base() is not None}; processes on the machine: {len(os.listdir('/proc'))}")
    try:
        for cgroup in (True, False):
            provider = LocalProvider(LocalConfig(root_dir=root, cgroup=cgroup), None)
            label = "cgroup + supervisor" if cgroup and _cgroup.base() else "supervisor only"
            show(f"one command ({label})", *await execs(provider, args.execs))
            show(f"open + first command + close ({label})", *await lives(provider, args.envs))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
