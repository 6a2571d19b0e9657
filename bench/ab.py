"""Two checkouts of agentcompass side by side on the same workloads: is a change within a few per cent?

    python -m bench.ab --base REV [--head CHECKOUT] [--rounds 16] [--tasks 1000] [--workloads trivial,help,import]
                       [--override KEY=VALUE ...]

``--base`` is a git revision (checked out into a temporary worktree, removed at the end) or the path of another
checkout; ``--head`` is this checkout unless given. Each round runs every workload once on each side, in the order
A B in even rounds and B A in odd ones, so that the machine's load weighs on both alike. The workloads, each in a
fresh interpreter with the side's tree first on ``sys.path``:

- ``trivial``: the user's ``agentcompass run synthetic nop none --env memory benchmark.n_tasks=N`` (the
  measured child of ``bench/overhead.py``: the run's wall time inside the process, and the process's CPU time);
- ``help``: ``agentcompass --help``, wall time;
- ``import``: ``import agentcompass._sdk`` (what every command loads), wall time.

Printed per figure: each side's median, and the ratio head / base as the geometric mean of the rounds' paired
ratios with a 95 % bootstrap interval (2,000 resamples of pairs of rounds, one of each order: the order's own
effect, the second run of a round finding warm caches, cancels). ``within 5 %`` is said only when the whole
interval lies in [0.95, 1.05], ``faster`` / ``slower by more than 5 %`` when it lies wholly below / above; an
interval across a bound says the machine was too noisy to tell. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.overhead import FRAMEWORK, child, child_env

REPO = Path(__file__).resolve().parents[1]


def checkout(rev_or_path: str, scratch: Path) -> str:
    """A checkout's root: the path itself, or a detached worktree of ``rev_or_path`` under ``scratch``."""
    if Path(rev_or_path).is_dir():
        return str(Path(rev_or_path).resolve())
    where = scratch / "base"
    subprocess.run(["git", "worktree", "add", "-q", "--detach", str(where), rev_or_path], cwd=REPO, check=True)
    return str(where)


def side_env(root: str, data_dir: str) -> dict[str, str]:
    env = child_env(data_dir)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])
    return env


def trivial(root: str, env: dict[str, str], tasks: int, overrides: list[str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="ac-bench-ab-") as tmp:
        argv = ["run", "synthetic", "nop", "none", "--env", "memory", f"benchmark.n_tasks={tasks}", *overrides]
        argv += ["--task-concurrency", "32", "--progress", "none", "--results-dir", tmp, "--log-level", "WARNING"]
        out = child(FRAMEWORK, argv, root, env)
    return {"trivial run s": out["inner_s"], "trivial CPU s": out["cpu_s"]}


def wall(root: str, env: dict[str, str], args: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *args], cwd=root, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def one_side(
    root: str,
    env: dict[str, str],
    workloads: list[str],
    tasks: int,
    overrides: Sequence[str] = (),
) -> dict[str, float]:
    figures: dict[str, float] = {}
    if "trivial" in workloads:
        figures.update(trivial(root, env, tasks, list(overrides)))
    if "help" in workloads:
        figures["--help s"] = wall(root, env, ["-m", "agentcompass", "--help"])
    if "import" in workloads:
        figures["import _sdk s"] = wall(root, env, ["-c", "import agentcompass._sdk"])
    return figures


def geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def interval(ratios: list[float], rng: random.Random) -> tuple[float, float]:
    """95 % bootstrap interval of the geometric mean of the paired ratios, resampling whole pairs of rounds (one
    of each order, A B and B A) so that the order's own effect cancels in every resample."""
    pairs = [ratios[i : i + 2] for i in range(0, len(ratios) - 1, 2)]
    means = sorted(geomean([r for p in rng.choices(pairs, k=len(pairs)) for r in p]) for _ in range(2000))
    return means[49], means[1949]


def report(base: list[dict[str, float]], head: list[dict[str, float]]) -> None:
    rng = random.Random(0)
    for key in base[0]:
        ratios = [h[key] / b[key] for b, h in zip(base, head, strict=True)]
        lo, hi = interval(ratios, rng)
        verdict = "within 5 %" if 0.95 <= lo and hi <= 1.05 else "not settled at 5 %"
        if hi < 0.95 or lo > 1.05:
            verdict = "faster by more than 5 %" if hi < 0.95 else "slower by more than 5 %"
        print(
            f"  {key:<16} base {statistics.median(b[key] for b in base):8.4f}  head "
            f"{statistics.median(h[key] for h in head):8.4f}  ratio {geomean(ratios):.3f} "
            f"[{lo:.3f}, {hi:.3f}]  {verdict}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="a git revision or another checkout's path")
    ap.add_argument("--head", default=str(REPO), help="the checkout compared (default: this one)")
    ap.add_argument("--rounds", type=int, default=16, help="an even number: as many rounds of each order")
    ap.add_argument("--tasks", type=int, default=1000)
    ap.add_argument("--workloads", default="trivial,help,import")
    ap.add_argument(
        "--override",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a config override for the trivial run on both sides (repeatable), e.g. execution.integrity_scan=false",
    )
    a = ap.parse_args()
    workloads = a.workloads.split(",")
    scratch = Path(tempfile.mkdtemp(prefix="ac-bench-ab-"))
    try:
        roots = {"base": checkout(a.base, scratch), "head": str(Path(a.head).resolve())}
        envs = {side: side_env(root, str(scratch / f"data-{side}")) for side, root in roots.items()}
        for side, root in roots.items():
            subprocess.run([sys.executable, "-m", "compileall", "-q", "agentcompass"], cwd=root, check=True)
            one_side(root, envs[side], workloads, a.tasks, a.override)  # warm: byte code, the kept composition
        print(f"base {roots['base']} | head {roots['head']}; load at the start {os.getloadavg()[0]:.2f}")
        got: dict[str, list[dict[str, float]]] = {"base": [], "head": []}
        for r in range(a.rounds):
            for side in ("base", "head") if r % 2 == 0 else ("head", "base"):
                got[side].append(one_side(roots[side], envs[side], workloads, a.tasks, a.override))
        print(f"{a.rounds} rounds, alternating; load at the end {os.getloadavg()[0]:.2f}")
        report(got["base"], got["head"])
    finally:
        if (scratch / "base").exists():
            subprocess.run(["git", "worktree", "remove", "--force", str(scratch / "base")], cwd=REPO, check=False)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
