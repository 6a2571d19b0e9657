"""CLI start-up: wall time of `agentcompass --help` and friends beside `python -c pass`, and what each imports.

    python bench/startup.py [--rounds 15] [--top 12]

Every command runs ``--rounds`` times in a fresh interpreter (this one, ``sys.executable``), the commands taking
turns in each round; printed: the median wall time, its ratio to the in-run baseline ``python -c pass`` and the
time above it, and the same of the minimum (on a loaded machine the least disturbed figure). Then, for each
command, ``-X importtime`` readings (a third of the rounds, at least 3): the interpreter's own start-up (``site``
and the ``.pth`` files of the installation, which ``python -c pass`` pays too) and every first-level module
imported after it (cumulative import time, median over the readings, largest first). Nothing is asserted: the
figures depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict

COMMANDS: dict[str, list[str]] = {
    "python -c pass (baseline)": ["-c", "pass"],
    "agentcompass --help": ["-m", "agentcompass", "--help"],
    "agentcompass --version": ["-m", "agentcompass", "--version"],
    "import agentcompass": ["-c", "import agentcompass"],
    "agentcompass run --help": ["-m", "agentcompass", "run", "--help"],
}
LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")


def walls(rounds: int) -> dict[str, float]:
    """Median wall time of each command; the commands take turns in every round, so load hits them alike."""
    times: dict[str, list[float]] = defaultdict(list)
    for _ in range(rounds):
        for name, args in COMMANDS.items():
            t0 = time.perf_counter()
            subprocess.run([sys.executable, *args], capture_output=True, check=True)
            times[name].append(time.perf_counter() - t0)
    return {name: (statistics.median(v), min(v)) for name, v in times.items()}


def first_level(args: list[str]) -> tuple[float, dict[str, float]]:
    """(ms of interpreter start-up up to and including ``site``, {first-level module after it: cumulative ms})."""
    err = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True).stderr
    startup, after_site, modules = 0.0, False, {}
    for line in err.splitlines():
        m = LINE.match(line)
        if not m or m.group(3):  # nested imports are inside their first-level module's cumulative time
            continue
        ms = int(m.group(2)) / 1000
        if not after_site:
            startup += ms
            after_site = m.group(4) == "site"
        else:
            modules[m.group(4)] = modules.get(m.group(4), 0.0) + ms
    return startup, modules


def breakdown(name: str, args: list[str], rounds: int, top: int) -> None:
    starts, per_module = [], defaultdict(list)
    for _ in range(rounds):
        startup, modules = first_level(args)
        starts.append(startup)
        for mod, ms in modules.items():
            per_module[mod].append(ms)
    med = {mod: statistics.median(v + [0.0] * (rounds - len(v))) for mod, v in per_module.items()}
    total = sum(med.values())
    print(f"\n{name}: -X importtime, median of {rounds}")
    print(f"  {statistics.median(starts):7.1f} ms  interpreter start-up (site, .pth files)")
    print(f"  {total:7.1f} ms  first-level imports after it ({len(med)} modules), largest:")
    for mod, ms in sorted(med.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {ms:7.1f} ms    {mod}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--top", type=int, default=12)
    a = ap.parse_args()
    print(f"{sys.executable} ({sys.version.split()[0]}); load average {os.getloadavg()[0]:.2f}")
    figures = walls(a.rounds)
    base, low = figures["python -c pass (baseline)"]
    print(f"wall time of {a.rounds} fresh processes (the commands in turn): median, ratio, difference; minimum, ...")
    for name, (t, m) in figures.items():
        print(
            f"  {name:28s} {t * 1000:7.1f} ms  {t / base:5.2f}x  {(t - base) * 1000:+7.1f} ms   "
            f"min {m * 1000:6.1f} ms  {m / low:5.2f}x  {(m - low) * 1000:+6.1f} ms"
        )
    for name, args in COMMANDS.items():
        if args != ["-c", "pass"]:
            breakdown(name, args, max(3, a.rounds // 3), a.top)
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
