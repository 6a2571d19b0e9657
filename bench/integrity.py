"""The integrity scan's cost: the demo run with the scan (the default) beside the same run without it.

    python bench/integrity.py [--env local|docker] [--harness oracle] [--repeats 3] [--samples 1]

Each side is ``run_evaluation(benchmark="demo", harness=..., environment=...)`` in this process, alternated in
every round so that the machine's load weighs on both alike; ``integrity_scan=False`` on the side without it.
Printed: the median wall time of each side over the rounds, the difference in seconds and in per cent, and the
time the scan itself took (``scan_run`` on the last run directory, which rescans every attempt). Nothing is
asserted: the figures depend on the machine. (The brief's aim: the scan adds at most 5 % to the docker demo.)
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from agentcompass import run_evaluation, scan_run


def _once(env: str, harness: str, samples: int, scan: bool, results: Path) -> tuple[float, str]:
    start = time.perf_counter()
    result = run_evaluation(
        benchmark="demo",
        harness=harness,
        model="none",
        environment=env,
        n_attempts=samples,
        results_dir=str(results),
        progress="none",
        integrity_scan=scan,
    )
    return time.perf_counter() - start, result["paths"]["run_dir"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="local")
    p.add_argument("--harness", default="oracle")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--samples", type=int, default=1)
    args = p.parse_args()
    times: dict[bool, list[float]] = {True: [], False: []}
    with tempfile.TemporaryDirectory(prefix="bench-integrity-") as tmp:
        _once(args.env, args.harness, args.samples, True, Path(tmp))  # warm-up: imports, images
        run_dir = ""
        for _ in range(args.repeats):
            for scan in (False, True):
                seconds, run_dir = _once(args.env, args.harness, args.samples, scan, Path(tmp))
                times[scan].append(seconds)
        start = time.perf_counter()
        report = scan_run(run_dir)
        scan_s = time.perf_counter() - start
    without, with_scan = statistics.median(times[False]), statistics.median(times[True])
    print(f"demo {args.harness} on {args.env}, {args.samples} sample(s) per task, median of {args.repeats}:")
    print(f"  without the scan  {without:8.3f} s   {[round(t, 3) for t in times[False]]}")
    print(f"  with the scan     {with_scan:8.3f} s   {[round(t, 3) for t in times[True]]}")
    print(f"  difference        {with_scan - without:+8.3f} s   ({100 * (with_scan - without) / without:+.1f} %)")
    print(f"  scan_run alone    {scan_s:8.3f} s for {report['n_scanned']} attempts")


if __name__ == "__main__":
    main()
