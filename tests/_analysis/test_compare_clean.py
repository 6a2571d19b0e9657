"""``agentcompass compare --clean`` on two real runs of the same Terminal-Bench-format tasks (local environment,
scripted shell agent): run B solves every task too, but on one it first reads git history beyond the base commit,
so the integrity scan flags it; with ``--clean`` that sample scores 0 and the pair's difference and its tests are
over the clean scores."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentcompass import compare_runs, run_evaluation
from tests._integrity.test_runs import CALC, SHELL, _honest_calc

REPO = Path(__file__).resolve().parents[2]
TASKS = ("calc-a", "calc-b", "calc-c")
PEEK = "git log --all --oneline 2>/dev/null; true"


def _run(tmp: Path, name: str, script: dict[str, list[str]], **kw) -> str:
    tasks = tmp / "tasks"
    if not tasks.exists():
        for t in TASKS:
            shutil.copytree(CALC, tasks / t)
    (tmp / f"{name}.json").write_text(json.dumps(script))
    result = run_evaluation(
        benchmark="terminal_bench",
        harness="nop",
        model="none",
        environment="local",
        results_dir=str(tmp / "results"),
        progress="none",
        run_name=name,
        overrides=[SHELL, f"+harness.script={tmp / f'{name}.json'}"],
        benchmark_params={"dataset_path": str(tasks), "workdir_files": "files"},
        **kw,
    )
    return str(result["paths"]["run_dir"])


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("clean")
    honest = {t: _honest_calc() for t in TASKS}
    return {
        "a": _run(tmp, "honest", honest),
        "b": _run(tmp, "peeks", {**honest, "calc-b": [PEEK, *_honest_calc()]}),
        "unscanned": _run(tmp, "unscanned", honest, integrity_scan=False),
    }


def _rows(run_dir: str) -> dict[str, dict]:
    return {r["task_id"]: r for r in map(json.loads, Path(run_dir, "results.jsonl").read_text().splitlines())}


@pytest.mark.slow
def test_clean_scores_count_flagged_samples_as_failures(runs):
    rows = _rows(runs["b"])
    assert all(r["resolved"] for r in rows.values())  # every task solved, one with a peek
    flagged = sorted(t for t, r in rows.items() if r["integrity"]["verdict"] != "clean")
    assert flagged == ["calc-b"]
    plain = compare_runs(runs["a"], runs["b"])
    clean = compare_runs(runs["a"], runs["b"], clean=True)
    assert plain["score"] == "reward" and clean["score"] == "clean"
    assert plain["pairs"][0]["mean_diff"] == 0.0
    expected = sum(0.0 if rows[t]["integrity"]["verdict"] != "clean" else 1.0 for t in TASKS) / len(TASKS) - 1.0
    assert clean["pairs"][0]["mean_diff"] == pytest.approx(expected)
    assert clean["pairs"][0]["a_better"] == ["calc-b"] and clean["tasks"]["flagged"] == {"A": [], "B": ["calc-b"]}
    board = {r["label"]: r["mean"] for r in clean["leaderboard"]}
    assert board["A"] == 1.0 and board["B"] == pytest.approx(2 / 3)
    out = subprocess.run(
        [sys.executable, "-m", "agentcompass", "compare", runs["a"], runs["b"], "--clean"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "clean scores: a sample the integrity scan flagged" in out.stdout and "flagged 1: calc-b" in out.stdout


@pytest.mark.slow
def test_clean_scores_of_a_run_never_scanned(runs):
    out = subprocess.run(
        [sys.executable, "-m", "agentcompass", "compare", runs["a"], runs["unscanned"], "--clean"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 2 and "no integrity verdicts" in out.stderr and "agentcompass scan" in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
