"""Commands that try to outlive their environment, and the checks that they did not (by pid, from /proc)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

RENAME_PY = """\
import os, sys, time
with open(sys.argv[1], "a") as f:
    f.write(f"{os.getpid()}\\n")
with open("/proc/self/comm", "w") as f:
    f.write("kworker-ish")
time.sleep(310)
"""

N_PLAIN, N_SETSID, N_HIDDEN = 140, 40, 20
N_EXPECTED = N_PLAIN + N_SETSID + N_HIDDEN + 1 + 1 + 1  # + the loop, the renamer, a daemon (+ the loop's children)


def pattern_script(pids: Path, workdir: Path) -> str:
    """Bash that starts, in the background: 140 plain children, 40 under ``setsid``, 20 with no session, no
    environment and a rewritten command line (``setsid env -i bash -c 'exec -a NAME sleep 302'``), a loop that
    keeps starting children, a Python process that renames itself, and a double-forked daemon. Each writes its
    pid to ``pids`` (the loop's children to ``pids.loop``)."""
    rename = workdir / "rename.py"
    rename.write_text(RENAME_PY)
    p = str(pids)
    return f"""
for i in $(seq {N_PLAIN}); do sleep 301 & echo $! >> {p}; done
for i in $(seq {N_SETSID}); do setsid bash -c 'echo $$ >> {p}; exec sleep 303' & done
for i in $(seq {N_HIDDEN}); do setsid env -i bash -c 'echo $$ >> {p}; exec -a NAME sleep 302' & done
setsid bash -c 'echo $$ >> {p}; while true; do sleep 305 & echo $! >> {p}.loop; sleep 0.05; done' &
setsid env -i {sys.executable} {rename} {p} &
( ( sleep 308 & echo $! >> {p} ) & )
"""


def start_ticks(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])


def recorded(pids: Path) -> dict[int, int | None]:
    """pid -> start time of every pid written to ``pids`` (None: already gone)."""
    out: dict[int, int | None] = {}
    for path in (pids, pids.with_name(pids.name + ".loop")):
        for word in path.read_text().split() if path.exists() else []:
            out.setdefault(int(word), start_ticks(int(word)))
    return out


def _count(path: Path) -> int:
    return len(set(path.read_text().split())) if path.exists() else 0


def wait_recorded(pids: Path, n: int = N_EXPECTED, timeout: float = 120.0) -> dict[int, int | None]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _count(pids) >= n and _count(pids.with_name(pids.name + ".loop")) >= 1:
            return recorded(pids)
        time.sleep(0.1)
    raise AssertionError(f"only {_count(pids)} of {n} processes started in {timeout:.0f} s")


def survivors(seen: dict[int, int | None]) -> list[int]:
    """The pids of ``seen`` still present in /proc as the same process (same start time), zombies included."""
    return sorted(pid for pid, ticks in seen.items() if ticks is not None and start_ticks(pid) == ticks)


def wait_hidden(seen: dict[int, int | None], n: int, timeout: float = 30.0) -> list[int]:
    """:func:`hidden` once it finds ``n`` (the renamer renames itself a moment after it wrote its pid)."""
    deadline = time.monotonic() + timeout
    while len(found := hidden(seen)) < n and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def hidden(seen: dict[int, int | None]) -> list[int]:
    """The pids of ``seen`` that shed everything a name- or environment-based search would use: session leaders
    with no ``AGENTCOMPASS_ROOT`` in their environment, named ``NAME`` or renamed."""
    out = []
    for pid in seen:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            session = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[3])
        except OSError:
            continue
        if b"AGENTCOMPASS_ROOT=" not in environ and session == pid and (cmd == b"NAME" or comm == "kworker-ish"):
            out.append(pid)
    return out
