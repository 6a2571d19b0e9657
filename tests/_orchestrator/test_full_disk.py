"""A full disk under the results dir or the data dir: one line naming the path and `No space left on device`,
no file of the run torn, and `--reuse` once space is freed runs exactly the samples that are missing.

The disk is a small tmpfs mounted by the test (root only) and unmounted in teardown.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from agentcompass.benchmarks import demo

ROOT = Path(__file__).resolve().parents[2]
N_TASKS = 300


class SmallDisk:
    """A 400 KiB tmpfs at ``path``; :meth:`resize` remounts it larger (space freed)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def resize(self, size: str) -> None:
        subprocess.run(["mount", "-o", f"remount,size={size}", str(self.path)], check=True)


@pytest.fixture
def small_disk(tmp_path):
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    where = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(where)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield SmallDisk(where)
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agentcompass", *args], capture_output=True, text=True, cwd=ROOT, timeout=600
    )


def synthetic(results: Path, *extra: str) -> subprocess.CompletedProcess:
    return cli(
        *["run", "synthetic", "oracle", "none", "--env", "memory", f"benchmark.n_tasks={N_TASKS}"],
        *["--results-dir", str(results), "--progress", "none", "--task-concurrency", "4", *extra],
    )


def every_file_is_whole(run_dir: Path) -> int:
    """Parse every JSON file of the run and every line of results.jsonl; no temporary file is left."""
    n = 0
    for path in run_dir.rglob("*.json"):
        json.loads(path.read_text())
        n += 1
    assert not list(run_dir.rglob("*.tmp")), list(run_dir.rglob("*.tmp"))
    for line in (run_dir / "results.jsonl").read_text().splitlines():
        json.loads(line)
    return n


def test_a_full_results_disk_stops_the_run_and_reuse_runs_the_rest(small_disk):
    results = small_disk.path / "results"
    first = synthetic(results)
    errors = first.stderr.strip().splitlines()
    assert first.returncode == 1, first.stderr
    assert len(errors) == 1 and "Traceback" not in first.stderr, first.stderr
    (run_dir,) = results.glob("synthetic__oracle__none/*")
    line = errors[0]
    assert line.startswith(f"agentcompass: error: cannot write {run_dir}/"), line
    assert ": No space left on device; the run stopped with " in line and f"--reuse {run_dir.name}" in line
    assert every_file_is_whole(run_dir) > 3
    kept = {json.loads(x)["task_id"] for x in (run_dir / "results.jsonl").read_text().splitlines()}
    assert 0 < len(kept) < N_TASKS
    assert f"the run stopped with {len(kept)} of {N_TASKS} samples finished" in line
    before = {p: _unscanned(p) for p in run_dir.glob("tasks/*/sample-1/attempt-*/result.json")}

    small_disk.resize("64m")
    second = synthetic(results, "--reuse", run_dir.name)
    assert second.returncode == 0, second.stderr
    assert f"{len(kept)} samples kept, {N_TASKS - len(kept)} to run" in second.stderr
    rows = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    assert sorted(r["task_id"] for r in rows) == sorted({r["task_id"] for r in rows}) and len(rows) == N_TASKS
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["metrics"]["n_samples"] == N_TASKS and summary["metrics"]["n_errors"] == 0
    # the kept samples were not run again (their results are the same but for the integrity verdict the second
    # session's scan adds); each missing one ran once (its attempt whose record did not fit is followed by a new one)
    assert all(_unscanned(p) == result for p, result in before.items())
    ran_again = {r["task_id"] for r in rows} - kept
    assert len(ran_again) == N_TASKS - len(kept)
    every_file_is_whole(run_dir)


def _unscanned(path: Path) -> dict:
    """An attempt's result.json without the integrity verdict (a later session's scan may add it)."""
    result = json.loads(path.read_text())
    result.pop("integrity", None)
    return result


def test_a_full_data_dir_is_one_line_naming_it(small_disk, tmp_path):
    """A task repository that does not fit into data_dir (a git checkout of 2 MB into 400 KiB)."""
    repo = tmp_path / "tasks-repo"
    shutil.copytree(Path(demo.__file__).with_name("demo_tasks") / "hello-file", repo / "hello-file")
    (repo / "hello-file" / "environment" / "blob.bin").write_bytes(os.urandom(2_000_000))
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.invalid", "-c", "user.name=t"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "tasks"]):
        subprocess.run([*git, *args], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    results, data = tmp_path / "results", small_disk.path / "data"
    done = cli(
        *["run", "terminal_bench", "oracle", "none", "--data-dir", str(data), "--results-dir", str(results)],
        *["--benchmark-params", json.dumps({"repo_url": str(repo), "revision": commit})],
    )
    errors = [x for x in done.stderr.splitlines() if x.startswith("agentcompass: error:")]
    assert done.returncode == 1 and len(errors) == 1 and "Traceback" not in done.stderr, done.stderr
    target = data / "terminal_bench" / f"tasks-repo@{commit}"
    assert errors[0] == (f"agentcompass: error: cannot fetch {repo}@{commit} into {target}: No space left on device"), (
        errors[0]
    )
    assert not results.exists()  # nothing ran
    assert not any(p.name.startswith(".") for p in (data / "terminal_bench").iterdir())  # no half checkout
