"""The CLI says what each column and progress field is: a legend line above each, ``passed`` shown with one
sample, ``s/sample`` per sample (not summed over samples), and, in ``launch``, every request's own counts and
running mean."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ORCHESTRATION = """\
version: 1
name: columns
defaults:
  benchmark: demo
  model: none
requests:
  - {name: good, harness: oracle, execution: {n_attempts: 2}}
  - {name: bad, harness: nop}
"""


@pytest.fixture(scope="module")
def launched(tmp_path_factory):
    root = tmp_path_factory.mktemp("columns")
    (root / "orch.yaml").write_text(ORCHESTRATION)
    argv = [sys.executable, "-m", "agentcompass", "launch", str(root / "orch.yaml"), "--progress", "plain"]
    proc = subprocess.run([*argv, "--results-dir", str(root / "out")], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_progress_lines_say_what_they_count_per_request(launched):
    lines = launched.stderr.splitlines()
    legend = [ln for ln in lines if ln.startswith("progress: ")]
    assert len(legend) == 1 and "running = attempts in progress" in legend[0]
    done = [ln for ln in lines if re.match(r"\[(good|bad)\] \d+/\d+ ", ln)]
    assert len(done) == 7 * 2 + 7
    for line in done:
        assert " run=" not in line and "| running=" in line, line
        shown = dict(re.findall(r"\| (good|bad) \d+/\d+ mean_reward=(\S+)", line))
        assert shown.get("good") in ("-", "1.000") and shown.get("bad") in ("-", "0.000"), line
        own, total = re.match(r"\[(\w+)\] \d+/(\d+) ", line).groups()
        assert int(total) == {"good": 14, "bad": 7}[own], line


def table(stdout: str, name: str) -> tuple[list[str], Path]:
    block = stdout.split(f"=== {name}: ")[1]
    rows = block.splitlines()
    run_dir = Path(next(ln for ln in rows if ln.startswith("results: ")).split(": ", 1)[1])
    return rows, run_dir


@pytest.mark.parametrize("name", ["good", "bad"])
def test_the_table_columns_are_explained_and_per_sample(launched, name):
    rows, run_dir = table(launched.stdout, name)
    assert rows[2].startswith("columns: ") and "s/sample = mean seconds of a sample" in rows[2]
    assert rows[3].split()[-2:] == ["s/sample", "error"]
    results = [json.loads(ln) for ln in (run_dir / "results.jsonl").read_text().splitlines()]
    for task_id in {r["task_id"] for r in results}:
        mine = [r for r in results if r["task_id"] == task_id]
        line = next(r for r in rows if r.startswith(task_id + " "))
        cells = line.split()
        passed = sum(r["status"] == "completed" and (r["reward"] or 0) >= 1 for r in mine)
        assert cells[3] == f"{passed}/{len(mine)}", line
        assert float(cells[5]) == pytest.approx(sum(r["duration_s"] for r in mine) / len(mine), abs=0.006), line
