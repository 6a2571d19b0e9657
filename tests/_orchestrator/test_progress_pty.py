"""The tqdm bar on a real terminal (a pty) stays intact while WARNING lines are logged during the run."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def run_in_pty(argv: list[str], cwd: Path, timeout: float = 120.0) -> tuple[int, str]:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))  # a 160-column terminal
    env = {**os.environ, "COLUMNS": "160", "TERM": "xterm"}
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, close_fds=True)
    os.close(slave)
    chunks, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    os.close(master)
    return proc.wait(timeout=30), b"".join(chunks).decode("utf-8", "replace")


def test_warnings_are_written_above_an_intact_bar(tmp_path):
    argv = [
        sys.executable,
        "-m",
        "agentcompass",
        "run",
        "synthetic",
        "oracle",
        "none",
        "--env",
        "memory",
        "--progress",
        "auto",
        "--task-concurrency",
        "2",
        "--results-dir",
        str(tmp_path / "r"),
        "harness._target_=tests.helpers.NoisyHarness",
        "benchmark.n_tasks=12",
    ]
    code, out = run_in_pty(argv, Path(__file__).resolve().parents[2])
    assert code == 0, out[-2000:]
    segments = [ANSI.sub("", s).strip() for s in re.split(r"[\r\n]", out)]
    segments = [s for s in segments if s]
    warnings = [s for s in segments if "noisy warning" in s]
    assert len(warnings) == 12, warnings
    bad = [s for s in warnings if not re.fullmatch(r"WARNING noisy warning from syn-\d+", s)]
    assert bad == [], bad  # no warning shares a line with a bar frame
    frames = [s for s in segments if re.match(r"agentcompass:\s+\d+%", s)]
    assert frames, segments[-10:]
    assert re.match(r"agentcompass:\s+100%\|.*\| 12/12 \[", frames[-1]), frames[-1]
    assert all("noisy" not in f for f in frames)
