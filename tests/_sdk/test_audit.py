"""``agentcompass audit demo --repeats 3`` on a fixture benchmark with one broken oracle, one flaky oracle and one
task that nop passes reports exactly those three, with their verifier output."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from agentcompass._sdk.audit import classify

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "audit_tasks"


def _fixture(tmp_path: Path) -> Path:
    tasks = tmp_path / "tasks"
    shutil.copytree(FIXTURE, tasks)
    (tmp_path / "tickets").mkdir()
    (tasks / "flaky-oracle" / "solution" / "tickets_dir").write_text(str(tmp_path / "tickets"))
    return tasks


def test_audit_reports_exactly_the_three_broken_tasks(tmp_path):
    tasks = _fixture(tmp_path)
    args = ["audit", "demo", "--repeats", "3", "--benchmark-params", json.dumps({"dataset_path": str(tasks)})]
    args += ["--env", "local", "--results-dir", str(tmp_path / "results"), "--data-dir", str(tmp_path / "data")]
    text = subprocess.run([sys.executable, "-m", "agentcompass", *args], capture_output=True, text=True, cwd=ROOT)
    assert text.returncode == 1, text.stderr  # problems found
    assert "broken-oracle  oracle_fails  0/3" in text.stdout and "flaky-oracle   oracle_flaky  2/3" in text.stdout
    assert "FAIL: answer.txt is missing or holds: okay" in text.stdout

    shutil.rmtree(tmp_path / "tickets")
    (tmp_path / "tickets").mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "agentcompass", *args, "--json"], capture_output=True, text=True, cwd=ROOT
    )
    report = json.loads(proc.stdout)
    found = {(f["task_id"], f["problem"]): f for f in report["findings"]}
    assert set(found) == {
        ("broken-oracle", "oracle_fails"),
        ("flaky-oracle", "oracle_flaky"),
        ("nop-passes", "nop_passes"),
    }
    assert report["n_tasks"] == 4 and report["repeats"] == 3
    assert found[("broken-oracle", "oracle_fails")]["rewards"] == [0.0, 0.0, 0.0]
    assert sorted(found[("flaky-oracle", "oracle_flaky")]["rewards"]) == [0.0, 1.0, 1.0]
    assert found[("nop-passes", "nop_passes")]["verifier_output"] == "PASS: nothing checked"
    assert (
        "FAIL: answer.txt is missing or holds: ticket 2" in found[("flaky-oracle", "oracle_flaky")]["verifier_output"]
    )
    saved = json.loads((Path(report["runs"]["oracle"]) / "audit.json").read_text())
    assert saved == report


def test_an_errored_sample_counts_as_not_passing():
    ok = {"reward": 1.0, "error": None}
    err = {"reward": None, "error": "SandboxError: gone"}
    findings = classify({"t": [ok, err]}, {"t": [{"reward": 0.0, "error": None}]}, 2)
    assert [(f.task_id, f.problem, f.oracle_passes, f.errors) for f in findings] == [
        ("t", "oracle_flaky", 1, ["SandboxError: gone"])
    ]
    assert classify({"t": [ok, ok]}, {"t": [{"reward": 0.0, "error": None}]}, 2) == []


def test_bad_repeats_is_one_line_and_exit_2(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "agentcompass", "audit", "demo", "--repeats", "0", "--results-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 2 and "repeats=0" in proc.stderr and "Traceback" not in proc.stderr
    assert not any(tmp_path.iterdir())
