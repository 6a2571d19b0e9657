"""The integrity scan's cost: the demo run with the scan (the default) beside the same run without it.

    python -m bench.integrity [--env local|docker] [--harness oracle|shell] [--repeats 3] [--samples 1]

(Run it as a module from the repository root: ``python bench/integrity.py`` puts ``bench/`` first on the import
path, where ``bench/docker.py`` hides the Docker SDK.)

Each side is ``run_evaluation(benchmark="demo", harness=..., environment=...)`` in this process, alternated in
every round so that the machine's load weighs on both alike; ``integrity_scan=False`` on the side without it.
``--harness shell`` types each task's solution as an agent would (``agentcompass.testing.shell_harness``), so
every attempt has a trajectory for the scan to read (the oracle records none).

Printed: the median wall time of each side over the rounds and their difference (in seconds and per cent), and,
because that difference is within the rounds' spread on a shared machine, the scan's own time: the time each run
made with it spent scanning its attempts (``scan_result``, timed in this process: each attempt as it ends, and any
left for the finalisation), and ``scan_run``
on each such run directory afterwards (it rescans every attempt and rewrites results.jsonl and summary.json),
each as a median and as a share of the median run with the scan. The two sides swap their order every round.
Nothing is asserted: the figures depend on the machine. (The aim: the scan adds at most 5 % to the docker demo.)
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

from agentcompass import run_evaluation, scan_run
from agentcompass.benchmarks.demo import DEMO_TASKS_DIR

SHELL = "harness._target_=agentcompass.testing.shell_harness.ShellScriptHarness"


def _shell_script(folder: Path) -> Path:
    """Each demo task's solution as the commands an agent types (its [solution.env] exported first)."""
    script = {}
    for task in sorted(p for p in DEMO_TASKS_DIR.iterdir() if p.is_dir()):
        env = tomllib.loads((task / "task.toml").read_text()).get("solution", {}).get("env", {})
        exports = "".join(f"export {k}={shlex.quote(str(v))}\n" for k, v in env.items())
        script[task.name] = ["ls -la", exports + (task / "solution" / "solve.sh").read_text()]
    path = folder / "script.json"
    path.write_text(json.dumps(script))
    return path


def _once(args: argparse.Namespace, scan: bool, results: Path) -> tuple[float, str]:
    kw: dict[str, Any] = {"harness": args.harness}
    if args.harness == "shell":
        kw = {"harness": "nop", "overrides": [SHELL, f"+harness.script={_shell_script(results)}"]}
    start = time.perf_counter()
    result = run_evaluation(
        benchmark="demo",
        model="none",
        environment=args.env,
        n_attempts=args.samples,
        results_dir=str(results),
        progress="none",
        integrity_scan=scan,
        **kw,
    )
    return time.perf_counter() - start, result["paths"]["run_dir"]


def _time_the_scan() -> list[float]:
    """Time every attempt's scan in this process (``scan_result``: as the attempt ends, or in the finalisation);
    the list it returns grows by one entry per attempt scanned."""
    from agentcompass._orchestrator.metrics import integrity

    spent: list[float] = []
    scan_result = integrity.scan_result

    def timed(*args: Any, **kw: Any) -> Any:
        start = time.perf_counter()
        try:
            return scan_result(*args, **kw)
        finally:
            spent.append(time.perf_counter() - start)

    integrity.scan_result = timed  # type: ignore[assignment]
    return spent


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="local")
    p.add_argument("--harness", default="oracle", help="oracle, shell (typed solutions, with trajectories), ...")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--samples", type=int, default=1)
    args = p.parse_args()
    times: dict[bool, list[float]] = {True: [], False: []}
    scans: list[float] = []
    n_scanned = 0
    spent = _time_the_scan()
    in_run: list[float] = []  # per run with the scan: its attempts' scans summed
    with tempfile.TemporaryDirectory(prefix="bench-integrity-") as tmp:
        _once(args, True, Path(tmp))  # warm-up: imports, images
        for i in range(args.repeats):
            for scan in (False, True) if i % 2 == 0 else (True, False):
                del spent[:]
                seconds, run_dir = _once(args, scan, Path(tmp))
                times[scan].append(seconds)
                if scan:
                    in_run.append(sum(spent))
            start = time.perf_counter()
            n_scanned = scan_run(run_dir)["n_scanned"]
            scans.append(time.perf_counter() - start)
    without, with_scan, scan_s, final_s = (statistics.median(x) for x in (times[False], times[True], scans, in_run))
    print(f"demo {args.harness} on {args.env}, {args.samples} sample(s) per task, median of {args.repeats}:")
    print(f"  without the scan  {without:8.3f} s   {[round(t, 3) for t in times[False]]}")
    print(f"  with the scan     {with_scan:8.3f} s   {[round(t, 3) for t in times[True]]}")
    print(f"  difference        {with_scan - without:+8.3f} s   ({100 * (with_scan - without) / without:+.1f} %)")
    for label, value, values in (("scan in the run  ", final_s, in_run), ("scan_run alone   ", scan_s, scans)):
        print(
            f"  {label} {value:8.3f} s   ({100 * value / with_scan:.2f} % of the run with it; "
            f"{n_scanned} attempts; {[round(t, 4) for t in values]})"
        )


if __name__ == "__main__":
    main()
