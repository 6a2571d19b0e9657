"""Viewer load times and report size, measured in headless Chromium (Debian's chromium + chromium-driver).

    python bench/viewer.py [--tasks 5000] [--report-tasks 500] [--repeats 3]

1. A real run of ``--tasks`` synthetic tasks (memory environment), one attempt of which gets a generated 20 MB
   mini-swe-agent trajectory: time until the Run page's task table is drawn, and until the trajectory's first
   steps are drawn (both from navigation start, in the page), over ``--repeats`` fresh page loads.
2. A real run of ``--report-tasks`` tasks whose attempts each get a SWE-bench-sized trajectory (30 steps of 3,000
   characters of log-like text), a 12,000-character verifier log and a 40-line patch: ``agentcompass report``'s
   file size and build time, and the time until the report's task table is drawn with the network disabled.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentcompass._view import serve, write_report
from tests._view import browser, synth


def mark(d, name: str) -> int:
    return int(browser.wait(d, lambda: d.execute_script(f"return document.documentElement.dataset.{name}"), 120, name))


def load(d, url: str, name: str, repeats: int) -> list[int]:
    out = []
    for _ in range(repeats):
        d.get("about:blank")
        d.get(url)
        out.append(mark(d, name))
    return out


def big_run(tmp: Path, n: int, repeats: int, d) -> None:
    t0 = time.perf_counter()
    run_dir = synth.big_run(tmp / "results", n)
    print(f"run of {n} tasks made in {time.perf_counter() - t0:.1f}s")
    traj = run_dir / "tasks" / "syn-0" / "sample-1" / "attempt-1" / "syn-0.traj.json"
    size = synth.write_json(traj, synth.msa_trajectory("syn-0", 1000, 20000))
    key = quote(f"results/{run_dir.parent.name}/{run_dir.name}", safe="")
    with serve([str(tmp / "results")]) as srv:
        table = load(d, f"{srv.url}#/run/{key}", "tasksRendered", repeats)
        rows = d.execute_script("return document.querySelectorAll('#tasks-table tbody tr').length")
        first = load(
            d, f"{srv.url}#/attempt/{key}/{quote('tasks/syn-0/sample-1/attempt-1', safe='')}", "trajRendered", repeats
        )
    print(
        f"Run page, {n} tasks: task table drawn at {statistics.median(table)} ms (median of {repeats}: {table}); "
        f"{rows} rows in the DOM"
    )
    print(
        f"Attempt page, {size / 1e6:.1f} MB trajectory: first steps drawn at {statistics.median(first)} ms "
        f"(median of {repeats}: {first})"
    )


def report(tmp: Path, n: int, d) -> None:
    run_dir = synth.big_run(tmp / "rep", n)
    synth.dress(run_dir)
    raw = sum(p.stat().st_size for p in run_dir.rglob("*") if p.is_file())
    t0 = time.perf_counter()
    info = write_report(run_dir, tmp / "report.html")
    built = time.perf_counter() - t0
    d.execute_cdp_cmd("Network.enable", {})
    d.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0},
    )
    shown = load(d, (tmp / "report.html").as_uri(), "tasksRendered", 1)[0]
    print(
        f"report, {n} tasks ({info['attempts']} attempts, run directory {raw / 1e6:.1f} MB): "
        f"{info['bytes'] / 1e6:.2f} MB in {built:.1f}s; task table drawn offline at {shown} ms"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=5000)
    ap.add_argument("--report-tasks", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    d = browser.start()
    try:
        with tempfile.TemporaryDirectory(prefix="ac-bench-view-") as tmp:
            big_run(Path(tmp), args.tasks, args.repeats, d)
            report(Path(tmp), args.report_tasks, d)
    finally:
        browser.stop(d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
