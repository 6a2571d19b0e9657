"""A run written before samples existed (``tasks/<id>/attempt-<n>/``, results lines without ``sample``) stays
readable: analysis, the viewer and ``export harbor`` read it as sample 1 of every task, and ``reuse`` with
``n_attempts=2`` keeps those attempts where they are and runs only sample 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcompass import run_evaluation

COIN = "agentcompass.testing.coin_harness.CoinHarness"
TASKS = ["count-words", "hello-file", "json-transform"]


def _run(results: Path, calls: Path, **kw) -> dict:
    return run_evaluation(
        benchmark="demo",
        harness="oracle",
        model="none",
        environment="local",
        benchmark_params={"sample_ids": TASKS},
        results_dir=str(results),
        run_name="old",
        progress="none",
        log_level="WARNING",
        task_concurrency=3,
        overrides=[
            f"harness._target_={COIN}",
            "+harness.pass_probability=1.0",
            f"+harness.calls_log={json.dumps(str(calls))}",
        ],
        **kw,
    )


def _to_old_layout(run_dir: Path) -> None:
    """Rewrite a one-sample run as it was written before samples existed."""
    for task in (run_dir / "tasks").iterdir():
        for attempt in (task / "sample-1").iterdir():
            attempt.rename(task / attempt.name)
        (task / "sample-1").rmdir()
        for path in task.glob("attempt-*/result.json"):
            data = json.loads(path.read_text())
            data.pop("sample", None)
            path.write_text(json.dumps(data))
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("sample")
        row["attempt_dir"] = row["attempt_dir"].replace("/sample-1/", "/")
    (run_dir / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture()
def old_run(tmp_path) -> tuple[Path, Path]:
    calls = tmp_path / "calls.log"
    result = _run(tmp_path / "res", calls)
    run_dir = Path(result["paths"]["run_dir"])
    _to_old_layout(run_dir)
    calls.unlink()
    assert sorted(p.name for p in (run_dir / "tasks" / "hello-file").iterdir()) == ["attempt-1"]
    return run_dir, calls


def test_an_old_run_reads_as_sample_one(old_run, tmp_path):
    from agentcompass._analysis.collect import load_run
    from agentcompass._export.harbor import export_harbor
    from agentcompass._view.attempts import task_attempts
    from agentcompass._view.discover import find_runs
    from agentcompass._view.runs import task_rows

    run_dir, _ = old_run
    _, records = load_run(run_dir)
    assert [(r.task_id, r.sample, len(r.attempts)) for r in records] == [(t, 1, 1) for t in TASKS]
    assert all(r.attempts[0]["reward"] == 1.0 for r in records)
    (ref,) = find_runs([run_dir.parent.parent])
    rows = task_rows(ref)
    assert sorted((r["id"], r["sample"], r["path"]) for r in rows) == [(t, None, f"tasks/{t}/attempt-1") for t in TASKS]
    assert task_attempts(ref, "tasks/hello-file") == [
        {"path": "tasks/hello-file/attempt-1", "sample": None, "attempt": 1, "status": "completed", "reward": 1.0}
    ]
    job = export_harbor(run_dir, tmp_path / "jobs")
    assert sorted(p.name for p in job.iterdir() if p.is_dir()) == [f"{t}__attempt-1" for t in TASKS]
    assert json.loads((job / "config.json").read_text())["n_attempts"] == 1


def test_reuse_of_an_old_run_adds_only_the_new_samples(old_run, tmp_path):
    run_dir, calls = old_run
    before = {t: (run_dir / "tasks" / t / "attempt-1" / "result.json").read_text() for t in TASKS}
    again = _run(tmp_path / "res", calls, n_attempts=2, reuse=True)
    assert Path(again["paths"]["run_dir"]) == run_dir
    ran = sorted(tuple(line.split()[:3]) for line in calls.read_text().splitlines())
    assert ran == [(t, "2", "1") for t in TASKS]  # sample 2 only, once each
    for t in TASKS:
        task = run_dir / "tasks" / t
        assert sorted(p.name for p in task.iterdir()) == ["attempt-1", "sample-2"]  # sample 1 left where it was
        assert (task / "attempt-1" / "result.json").read_text() == before[t]
    m = again["metrics"]
    assert (m["n_samples"], m["samples_per_task"], m["n_errors"]) == (6, 2, 0)
    assert m["pass_at_k"] == {"1": 1.0, "2": 1.0}
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert sorted((r["task_id"], r.get("sample", 1)) for r in rows) == sorted((t, j) for t in TASKS for j in (1, 2))
