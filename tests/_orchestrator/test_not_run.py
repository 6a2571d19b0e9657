"""A request stopped by a dead model endpoint still accounts for every task: the summary's ``not_run`` lists
each task without a finished sample (cancelled in flight, or not started) and why, the CLI table prints a row
for every task, and the viewer shows them as not started / cancelled, not as pending."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from agentcompass._view.discover import RunRef
from agentcompass._view.runs import task_rows

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens on it once closed
    results = tmp_path_factory.mktemp("dead")
    argv = [sys.executable, "-m", "agentcompass", "run", "demo", "oracle", "m", "--progress", "none"]
    argv += ["harness._target_=tests.helpers.ModelEchoHarness", "--model-base-url", f"http://127.0.0.1:{port}/v1"]
    argv += ["--model-api-key", "k", "--task-concurrency", "2", "--results-dir", str(results)]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=300)
    (summary,) = results.rglob("summary.json")
    tasks = json.loads((summary.parent / "tasks.json").read_text())["task_ids"]
    return proc, summary.parent, json.loads(summary.read_text()), tasks


def test_every_task_is_listed_with_its_status_and_why(stopped):
    proc, _, result, tasks = stopped
    assert "ModelEndpointDownError" in proc.stderr.strip().splitlines()[-1]
    summary = result["summary"]
    finished = [t["task_id"] for t in summary["tasks"]]
    not_run = {r["task_id"]: r for r in summary["not_run"]}
    assert sorted(finished + list(not_run)) == sorted(tasks) and not set(finished) & set(not_run)
    assert len(not_run) >= len(tasks) - 2  # at most two were under way (task_concurrency 2)
    for row in not_run.values():
        assert row["status"] in ("not_started", "cancelled") and row["samples"][0]["status"] == row["status"]
        assert row["reason"].startswith("the request stopped: ModelEndpointDownError: model endpoint ")
    assert any(r["status"] == "not_started" for r in not_run.values())
    table = {ln.split()[0]: ln.split()[1] for ln in proc.stdout.splitlines() if ln.split() and ln.split()[0] in tasks}
    assert table == {**{t: "error" for t in finished}, **{t: r["status"] for t, r in not_run.items()}}


def test_the_viewer_shows_the_tasks_that_did_not_run(stopped):
    _, run_dir, result, tasks = stopped
    rows = {r["id"]: r for r in task_rows(RunRef(key="r", path=run_dir))}
    assert sorted(rows) == sorted(tasks)
    for row in result["summary"]["not_run"]:
        shown = rows[row["task_id"]]
        assert (shown["status"], shown["error"]) == (row["status"], row["reason"])
