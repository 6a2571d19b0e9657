"""A run directory written before the record was typed (``tests/data/run_v0``: demo, 3 tasks x 2 samples, sample 2
of each task failed once with an infra error) still opens in ``view``, ``compare``, ``analyze`` and ``--reuse``,
and its files fit the schemas ``agentcompass schema`` prints. Each test works on a copy: the data stays as it was
written."""

from __future__ import annotations

import json
import shutil
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

import pytest

from agentcompass import compare_runs, run_evaluation
from agentcompass._cli.main import main
from agentcompass._orchestrator.record import schema

DATA = Path(__file__).resolve().parents[1] / "data" / "run_v0"
RUN_ID = "20260101T000000.000000Z-abc123"
TASKS = ["count-words", "hello-file", "json-transform"]
# the request that wrote it (the config a reuse must repeat)
COIN = [
    "harness._target_=agentcompass.testing.coin_harness.CoinHarness",
    "+harness.pass_probability=0.5",
    "+harness.seed=3",
    "+harness.fail_samples=[2]",
]


@pytest.fixture()
def old(tmp_path) -> Path:
    """A copy of the old results dir; returns its run directory."""
    shutil.copytree(DATA, tmp_path / "res")
    return tmp_path / "res" / "old-run" / RUN_ID


def test_the_old_files_fit_the_schemas(old):
    for path in old.glob("tasks/*/sample-*/attempt-*/result.json"):
        schema.validate("result", path.read_text())
    for line in (old / "results.jsonl").read_text().splitlines():
        schema.validate("row", line)
    schema.validate("summary", (old / "summary.json").read_text())
    schema.validate("run", (old / "run.json").read_text())
    assert "schema_version" not in json.loads((old / "summary.json").read_text())["metadata"]


def _api(url: str, route: str, **params: str) -> dict:
    with urllib.request.urlopen(f"{url}api/{route}?{urlencode(params)}", timeout=30) as res:
        return json.loads(res.read())


def test_view_opens_it(old):
    from agentcompass._view import serve

    with serve([str(old.parent.parent)]) as srv:
        (run,) = _api(srv.url, "runs")["runs"]
        assert (run["benchmark"], run["status"], run["n_tasks"], run["n_errors"]) == ("demo", "completed", 3, 3)
        tasks = {t["id"]: t for t in _api(srv.url, "tasks", run=run["key"])["tasks"]}
        assert sorted(tasks) == TASKS
        listed = _api(srv.url, "task", run=run["key"], dir="tasks/count-words")["attempts"]
        assert len(listed) == 2
        att = _api(srv.url, "attempt", run=run["key"], path=listed[0]["path"])
        assert (att["task_id"], att["status"], att["reward"]) == ("count-words", "completed", 0.0)
        assert att["phases"]["verify"] > 0 and att["grade"]["details"]["reward_file"] == "reward.txt"


def test_compare_reads_it(old, tmp_path):
    other = tmp_path / "other" / "old-run" / RUN_ID
    shutil.copytree(old, other)
    (pair,) = compare_runs(old, other)["pairs"]
    assert pair["n"] == 0  # every task has an errored sample: left out unless errors count 0
    (pair,) = compare_runs(old, other, errors_as_zero=True)["pairs"]
    assert (pair["n"], pair["mean_a"], pair["mean_diff"]) == (3, pytest.approx(1 / 6), 0.0)


def test_analyze_reads_it(old, capsys):
    assert main(["analyze", str(old)]) == 0
    analysis = json.loads((old / "analysis.json").read_text())
    outcomes = {k: v for k, v in analysis["breakdown"]["outcomes"].items() if v}
    assert outcomes == {"resolved": 1, "unresolved": 2, "infra_error": 3}
    summary = json.loads((old / "summary.json").read_text())
    assert summary["paths"]["analysis"].endswith("analysis.json")
    schema.validate("summary", json.dumps(summary))


def test_reuse_goes_on_with_it(old):
    result = run_evaluation(
        benchmark="demo",
        harness="oracle",
        model="none",
        environment="local",
        benchmark_params={"sample_ids": TASKS},
        results_dir=str(old.parent.parent),
        run_name="old-run",
        reuse=True,
        n_attempts=2,
        task_concurrency=2,
        progress="none",
        log_level="WARNING",
        overrides=COIN,
    )
    meta, m = result["metadata"], result["metrics"]
    assert meta["run_id"] == RUN_ID and len(meta["sessions"]) == 2
    assert meta["sessions"][1]["samples_run"] == 3  # the three failed samples, nothing else
    assert (m["n_samples"], m["n_errors"]) == (6, 0)
    for task in TASKS:  # a failed sample goes on with its next attempt number
        assert (old / "tasks" / task / "sample-2" / "attempt-2" / "result.json").is_file()
    rows = [json.loads(line) for line in (old / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and {r["attempt_dir"] for r in rows if r["sample"] == 1} == {
        f"/tmp/fixrun/old-run/{RUN_ID}/tasks/{t}/sample-1/attempt-1" for t in TASKS
    }  # the kept rows are the old ones, as written
