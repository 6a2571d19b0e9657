"""The SDK's keyword signatures are visible to type checkers: the stub generated from the options table is up
to date, and mypy rejects a misspelt keyword (and a value of the wrong type) in a call of the SDK."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentcompass._config import options, stubs

ROOT = Path(__file__).resolve().parents[2]


def test_the_stub_is_up_to_date():
    assert (ROOT / stubs.STUB).read_text() == stubs.stub_text(), (
        "agentcompass/__init__.pyi is stale: scripts/generate.py"
    )


def test_the_stub_has_every_keyword_of_every_entry_point():
    text = stubs.stub_text()
    for entry in ("run", "launch"):
        for row in options.for_entry(entry):
            assert f"    {row.name}: " in text
    assert "timeout_seconds: int | None = None" in text  # run_evaluation: whole seconds
    assert "timeout_seconds: float | None = None" in text  # launch: fractions too


def _mypy(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    snippet = tmp_path / "snippet.py"
    snippet.write_text(source)
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent"]
    cmd += ["--ignore-missing-imports", "--cache-dir", str(tmp_path / "cache"), str(snippet)]
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_mypy_sees_the_sdk_keywords(tmp_path):
    good = _mypy(
        tmp_path,
        "from agentcompass import RunResult, launch, run_evaluation\n\n"
        "result: RunResult = run_evaluation(benchmark='demo', task_concurrency=4, timeout_seconds=60)\n"
        "mean = result['metrics']['mean_reward']\n"
        "run_dir: str = result['paths']['run_dir']\n"
        "outcome = launch({'requests': [{'name': 'a'}]}, timeout_seconds=1.5)\n",
    )
    assert good.returncode == 0, good.stdout + good.stderr
    misspelt = _mypy(tmp_path, "from agentcompass import run_evaluation\n\nrun_evaluation(task_concurency=4)\n")
    assert misspelt.returncode == 1, misspelt.stdout
    assert 'Unexpected keyword argument "task_concurency"' in misspelt.stdout
    assert '"task_concurrency"' in misspelt.stdout  # mypy names the nearest keyword
    wrong = _mypy(tmp_path, "from agentcompass import run_evaluation\n\nrun_evaluation(task_concurrency='4')\n")
    assert wrong.returncode == 1 and "task_concurrency" in wrong.stdout, wrong.stdout
