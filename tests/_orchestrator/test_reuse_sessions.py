"""``--reuse`` keeps the run's history: the first start, every session (start, end, duration, samples run) and a
duration that is the sum of the sessions', in run.json, summary.json and the CLI's first line."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(results: Path, *extra: str) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "agentcompass", "run", "demo", "oracle", "none", "--progress", "none", *extra]
    proc = subprocess.run([*argv, "--results-dir", str(results)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc


def records(results: Path) -> tuple[dict, dict]:
    (run_dir,) = [p.parent for p in results.rglob("run.json")]
    return json.loads((run_dir / "run.json").read_text()), json.loads((run_dir / "summary.json").read_text())


def test_reuse_keeps_the_first_start_and_records_each_session(tmp_path):
    run(tmp_path)
    first_run, first_summary = records(tmp_path)
    first = first_summary["metadata"]
    assert [s["samples_run"] for s in first["sessions"]] == [7]
    run(tmp_path, "--reuse")  # nothing left to run
    proc = run(tmp_path, "--reuse", "-k", "2")  # a second sample of every task
    run_json, summary = records(tmp_path)
    md = summary["metadata"]
    assert md["started_at"] == run_json["started_at"] == first["started_at"] == first_run["started_at"]
    sessions = md["sessions"]
    assert sessions[0] == first["sessions"][0]  # the first session as it was recorded
    assert [s["samples_run"] for s in sessions] == [7, 0, 7]
    assert [s["status"] for s in sessions] == ["completed"] * 3
    assert run_json["sessions"] == sessions
    for a, b in zip(sessions, sessions[1:], strict=False):  # one after the other, each ended before the next
        assert datetime.fromisoformat(a["finished_at"]) <= datetime.fromisoformat(b["started_at"])
    assert md["duration_s"] >= first["duration_s"]
    assert abs(md["duration_s"] - sum(s["duration_s"] for s in sessions)) < 0.002
    assert md["finished_at"] == sessions[-1]["finished_at"]
    line = proc.stdout.splitlines()[0]
    assert f" over 3 sessions since {first['started_at'][:19]}Z (this one: " in line and "7 samples run)" in line


def test_a_run_written_before_sessions_counts_as_one_session(tmp_path):
    run(tmp_path)
    run_json, summary = records(tmp_path)
    (run_dir,) = [p.parent for p in tmp_path.rglob("run.json")]
    for name, data in (("run.json", run_json), ("summary.json", summary)):  # the files as older versions wrote them
        data.pop("sessions", None)
        data.get("metadata", {}).pop("sessions", None)
        (run_dir / name).write_text(json.dumps(data))
    run(tmp_path, "--reuse")
    md = records(tmp_path)[1]["metadata"]
    old = summary["metadata"]
    assert md["started_at"] == old["started_at"]
    assert md["sessions"][0] == {
        "started_at": old["started_at"],
        "finished_at": old["finished_at"],
        "duration_s": old["duration_s"],
        "samples_run": 7,
        "status": "completed",
    }
    assert len(md["sessions"]) == 2 and md["sessions"][1]["samples_run"] == 0
