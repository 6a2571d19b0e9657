"""``agentcompass._cli.main.entry`` (the program): it ends the process with :func:`main`'s exit code after the
exit handlers ran and the standard streams were flushed; a non-daemon thread still running is waited for."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def program(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)


def test_exit_code_handlers_and_buffered_output():
    out = program(
        "import atexit, sys\n"
        "from agentcompass._cli import main as m\n"
        "atexit.register(lambda: print('handler ran'))\n"
        "def fake():\n"
        "    sys.stdout.write('buffered, not flushed;')\n"
        "    sys.stderr.write('on stderr')\n"
        "    return 3\n"
        "m.main = fake\n"
        "m.entry()\n"
        "print('never here')\n"
    )
    assert out.returncode == 3
    assert out.stdout == "buffered, not flushed;handler ran\n"
    assert out.stderr == "on stderr"


def test_a_running_non_daemon_thread_is_waited_for():
    out = program(
        "import threading, time\n"
        "from agentcompass._cli import main as m\n"
        "t = threading.Thread(target=lambda: (time.sleep(0.5), print('thread done', flush=True)))\n"
        "m.main = lambda: (t.start(), 4)[1]\n"
        "m.entry()\n"
    )
    assert out.returncode == 4 and out.stdout == "thread done\n", out


def test_a_run_through_the_program_keeps_its_whole_record(tmp_path):
    """``python -m agentcompass run``: exit 0, its result printed whole, its records on disk."""
    out = subprocess.run(
        [sys.executable, "-m", "agentcompass", "run", "synthetic", "nop", "none", "--env", "memory"]
        + ["benchmark.n_tasks=3", "--progress", "none", "--results-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    [run_dir] = tmp_path.glob("*/*")
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["metrics"]["n_tasks"] == 3
    assert len((run_dir / "results.jsonl").read_text().splitlines()) == 3
    lines = out.stdout.splitlines()  # the whole table, up to its last line
    assert lines[0].startswith(f"run synthetic__nop__none/{run_dir.name}: completed")
    assert lines[1].startswith("columns: ") and lines[2].split()[0] == "task"  # the legend, then the header
    assert [line.split()[0] for line in lines[3:6]] == ["syn-0", "syn-1", "syn-2"]
    assert any(line.startswith("tasks=3 samples=3") for line in lines) and out.stdout.endswith("\n")
