"""Input with several problems is still one line: the first problem, how many more, and where the full list is;
exit code 2 and nothing written. ``--log-level DEBUG`` lists every problem."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentcompass.benchmarks import demo

ROOT = Path(__file__).resolve().parents[2]
HELLO = Path(demo.__file__).with_name("demo_tasks") / "hello-file"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agentcompass", *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


def task(root: Path, name: str, toml: str | None = None) -> Path:
    path = root / name
    shutil.copytree(HELLO, path)
    if toml is not None:
        (path / "task.toml").write_text(toml)
    return path


def negative_timeout() -> str:
    return (HELLO / "task.toml").read_text().replace("timeout_sec = 300.0", "timeout_sec = -5.0")


def tb(dataset: Path, results: Path) -> list[str]:
    params = json.dumps({"dataset_path": str(dataset)})
    return ["run", "terminal_bench", "oracle", "none", "--benchmark-params", params, "--results-dir", str(results)]


CASES = {
    "all tasks malformed": (
        lambda d: [task(d, f"bad-{i}", "x = [\n") for i in range(3)] and d,
        "none of its 3 task directories is valid: {d}/bad-0/task.toml: not valid TOML",
        "(and 2 more; --log-level DEBUG lists them all)",
    ),
    "invalid TOML": (
        lambda d: task(d, "one", "this is [ not toml\nand: more\n"),
        "its task directory is not valid: {d}/one/task.toml: not valid TOML",
        "",
    ),
    "negative timeout": (
        lambda d: task(d, "neg", negative_timeout()),
        "its task directory is not valid: {d}/neg/task.toml: agent.timeout_sec=-5.0: expected a non-negative",
        "",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_dataset_is_one_line_and_nothing_is_written(case, tmp_path):
    make, first, more = CASES[case]
    (tmp_path / "d").mkdir()
    dataset = make(tmp_path / "d")
    results = tmp_path / "results"
    done = cli(*tb(dataset, results))
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("agentcompass: error: dataset_path ")
    assert first.format(d=tmp_path / "d") in lines[0] and lines[0].endswith(more), lines[0]
    assert not results.exists()


def test_debug_lists_every_problem(tmp_path):
    for i in range(3):
        task(tmp_path / "d", f"bad-{i}", "x = [\n")
    done = cli(*tb(tmp_path / "d", tmp_path / "results"), "--log-level", "DEBUG")
    problems = [line for line in done.stderr.splitlines() if line.startswith("agentcompass: problem: ")]
    assert done.returncode == 2 and len(problems) == 3, done.stderr
    assert [f"bad-{i}/task.toml" in line for i, line in enumerate(problems)] == [True] * 3


@pytest.mark.parametrize(
    ("args", "first", "more"),
    [
        (["synthetic", "oracle", "none", "--env", "memory", "benchmark.n_tasks=1e9"], "n_tasks=1000000000.0", ""),
        (
            ["demo", "oracle", "none", "--env-params", '{"foo": 1, "bar": 2}'],
            "environment 'local': unknown key 'foo'; valid keys: ",
            " (and 1 more problem; --log-level DEBUG lists them all)",
        ),
        (
            ["demo", "oracle", "none", "execution.max_retries=-1", "execution.n_attempts=0", "runtime.progress=x"],
            "config: ",
            " (and 2 more problems; --log-level DEBUG lists them all)",
        ),
    ],
    ids=["synthetic 1e9", "two unknown keys", "three bad values"],
)
def test_several_bad_values_are_one_line(args, first, more, tmp_path):
    results = tmp_path / "results"
    done = cli("run", *args, "--results-dir", str(results))
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert first in lines[0] and lines[0].endswith(more), lines[0]
    assert not results.exists()


def test_some_malformed_tasks_are_one_warning_and_listed_in_the_run(tmp_path):
    task(tmp_path / "d", "good")
    task(tmp_path / "d", "bad-toml", "x = [\n")
    task(tmp_path / "d", "negative", negative_timeout())
    results = tmp_path / "results"
    done = cli(*tb(tmp_path / "d", results), "--progress", "none")
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "malformed" in line]
    assert len(warnings) == 1, done.stderr
    assert "2 of 3 task directories malformed, skipped" in warnings[0] and "(and 1 more)" in warnings[0]
    assert warnings[0].endswith("all of them: skipped_tasks.json in the run directory")
    (skipped,) = results.glob("*/*/skipped_tasks.json")
    assert sorted(row["task_id"] for row in json.loads(skipped.read_text())) == ["bad-toml", "negative"]
