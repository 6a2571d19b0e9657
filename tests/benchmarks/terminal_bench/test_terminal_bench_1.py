"""``terminal_bench_1``: the commit, folder and task subset terminal-bench's registry pins for
terminal-bench-core==0.1.1; its tasks are the subset only (other folders are not part of it), graded with the
Terminal-Bench 1 parsers. The task repository is replaced by a local one (``file://``) at a commit of its own."""

from __future__ import annotations

from pathlib import Path

from agentcompass._config.compose import component_config
from tests.benchmarks.swebench.fixture import git
from tests.benchmarks.terminal_bench.test_tb1 import LOCAL_TEST, write_tb1

CORE_PIN = "91e10457b5410f16c44364da1a34cb6de8c488a5"


def test_the_pin_is_the_registrys():
    cfg = component_config("benchmark", "terminal_bench_1")
    assert (cfg["revision"], cfg["subdir"]) == (CORE_PIN, "tasks")
    assert cfg["repo_url"].endswith("/terminal-bench-1.git") and cfg["sample_ids"] is None
    subset = cfg["task_subset"]
    assert len(subset) == len(set(subset)) == 80
    assert {"hello-world", "crack-7z-hash.easy", "swe-bench-fsspec", "write-compressor"} <= set(subset)


def _core_repo(root: Path) -> tuple[str, str]:
    repo = root / "terminal-bench"
    solve = "#!/bin/bash\necho 'hi there' > greeting.txt\n"
    write_tb1(repo / "tasks", "hello-world", test_py=LOCAL_TEST, solution=solve)
    write_tb1(repo / "tasks", "crack-7z-hash.easy", test_py=LOCAL_TEST, solution="#!/bin/bash\ntrue\n")
    write_tb1(repo / "tasks", "not-in-core", test_py=LOCAL_TEST, solution=solve)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "core")
    return f"file://{repo}", git(repo, "rev-parse", "HEAD").strip()


def test_only_the_subset_runs_and_grades_with_the_tb1_parsers(tmp_path):
    from agentcompass import run_evaluation

    url, commit = _core_repo(tmp_path)
    result = run_evaluation(
        benchmark="terminal_bench_1",
        harness="oracle",
        model="none",
        environment="local",
        benchmark_params={"repo_url": url, "revision": commit},
        results_dir=str(tmp_path / "results"),
        data_dir=str(tmp_path / "data"),
        progress="none",
    )
    rows = {r["task_id"]: r for r in result["summary"]["tasks"]}
    assert sorted(rows) == ["crack-7z-hash.easy", "hello-world"], rows  # not-in-core is not part of it
    assert rows["hello-world"]["reward"] == 1.0 and rows["crack-7z-hash.easy"]["reward"] == 0.0
