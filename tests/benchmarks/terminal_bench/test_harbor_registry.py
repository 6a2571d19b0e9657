"""Datasets of a Harbor registry by name: a local registry file in Harbor's format naming two datasets, each at a
commit of a local git repository (``file://``); resolved by NAME@VERSION, run with oracle (reward 1) and nop
(reward 0), cached; an unknown name or version is one line listing the known ones."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentcompass.benchmarks.terminal_bench import registry
from agentcompass.benchmarks.terminal_bench.benchmark import TerminalBenchBenchmark, TerminalBenchConfig
from agentcompass.errors import DatasetError
from agentcompass.interfaces import ComponentContext
from tests.benchmarks.swebench.fixture import git

ROOT = Path(__file__).resolve().parents[3]
TASK = ROOT / "tests" / "data" / "audit_tasks" / "good"


def _repo(root: Path, name: str, tasks: dict[str, str]) -> tuple[Path, str]:
    """A git repository holding copies of the sound fixture task at the given paths; returns (repo, commit)."""
    repo = root / name
    for path in tasks.values():
        shutil.copytree(TASK, repo / path)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "tasks")
    commit = git(repo, "rev-parse", "HEAD").strip()
    for path in tasks.values():  # a later commit breaks every reference solution: the pin must be honoured
        (repo / path / "solution" / "solve.sh").write_text("#!/bin/bash\necho broken > answer.txt\n")
    git(repo, "commit", "-q", "-am", "break the solutions")
    return repo, commit


@pytest.fixture
def harbor_registry(tmp_path):
    a, a_commit = _repo(tmp_path, "repo-a", {"alpha": "alpha"})
    b, b_commit = _repo(tmp_path, "repo-b", {"beta": "tasks/beta", "gamma": "tasks/nested/gamma"})

    def task(name, repo, commit, path):
        return {"name": name, "git_url": f"file://{repo}", "git_commit_id": commit, "path": path}

    datasets = [
        {"name": "one", "version": "1.0", "description": "d1", "tasks": [task("alpha", a, a_commit, "alpha")]},
        {
            "name": "two",
            "version": "2.0",
            "description": "d2",
            "tasks": [task("beta", b, b_commit, "tasks/beta"), task("gamma", b, b_commit, "tasks/nested/gamma")],
            "metrics": [{"type": "mean"}],
        },
        {"name": "two", "version": "1.5", "description": "older", "tasks": [task("alpha", a, a_commit, "alpha")]},
    ]
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(datasets, indent=2))
    return path, tmp_path / "data"


def _bench(data_dir: Path, **kw) -> TerminalBenchBenchmark:
    return TerminalBenchBenchmark(TerminalBenchConfig(**kw), ComponentContext(data_dir=data_dir))


def test_name_at_version_resolves_to_the_pinned_tasks_and_is_cached(harbor_registry, tmp_path):
    path, data = harbor_registry
    assert [t.id for t in _bench(data, dataset="one@1.0", registry_path=str(path)).load()] == ["alpha"]
    two = _bench(data, dataset="two@2.0", registry_path=str(path))
    assert [t.id for t in two.load()] == ["beta", "gamma"]
    folder = data / "harbor" / "datasets" / "two@2.0"
    record = json.loads((folder / registry.MARKER).read_text())
    assert [t["path"] for t in record["dataset"]["tasks"]] == ["tasks/beta", "tasks/nested/gamma"]
    shutil.rmtree(tmp_path / "repo-b")  # cached: no fetch needed any more
    assert [t.id for t in _bench(data, dataset="two@2.0", registry_path=str(path)).load()] == ["beta", "gamma"]
    assert [t.id for t in _bench(data, dataset="two", registry_path=str(path)).load()] == ["beta", "gamma"]
    shutil.rmtree(folder / "gamma")  # checked: an incomplete copy is made again, from the cached checkout
    assert [t.id for t in _bench(data, dataset="two@2.0", registry_path=str(path)).load()] == ["beta", "gamma"]
    shutil.rmtree(folder / "gamma")
    shutil.rmtree(data / "terminal_bench")  # ... and with neither the copy nor the checkout, git is asked again
    with pytest.raises(DatasetError, match="cannot fetch tasks from file://"):
        _bench(data, dataset="two@2.0", registry_path=str(path)).load()


def _run(path: Path, data: Path, results: Path, harness: str, ref: str) -> dict:
    from agentcompass import run_evaluation

    return run_evaluation(
        benchmark="terminal_bench",
        harness=harness,
        model="none",
        environment="local",
        benchmark_params={"dataset": ref, "registry_path": str(path)},
        results_dir=str(results),
        data_dir=str(data),
        progress="none",
    )


@pytest.mark.parametrize("ref,n_tasks", [("one@1.0", 1), ("two@2.0", 2)])
def test_oracle_scores_1_and_nop_0(harbor_registry, tmp_path, ref, n_tasks):
    path, data = harbor_registry
    oracle = _run(path, data, tmp_path / "results", "oracle", ref)
    assert oracle["metrics"]["n_tasks"] == n_tasks and oracle["metrics"]["mean_reward"] == 1.0, oracle["summary"]
    nop = _run(path, data, tmp_path / "results", "nop", ref)
    assert nop["metrics"]["n_tasks"] == n_tasks and nop["metrics"]["mean_reward"] == 0.0, nop["summary"]


@pytest.mark.parametrize(
    "ref,needle",
    [
        ("three@1.0", "dataset 'three' is not in the Harbor registry .*; known: one@1.0, two@2.0, two@1.5"),
        ("two@9", "dataset 'two' has no version '9' .*; known versions: 2.0, 1.5"),
    ],
)
def test_unknown_name_or_version_is_one_line_listing_the_known(harbor_registry, ref, needle, tmp_path):
    path, data = harbor_registry
    with pytest.raises(DatasetError, match=needle):
        _bench(data, dataset=ref, registry_path=str(path)).load()
    params = json.dumps({"dataset": ref, "registry_path": str(path)})
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agentcompass",
            "list",
            "tasks",
            "terminal_bench",
            "--benchmark-params",
            params,
            "--data-dir",
            str(data),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "known" in proc.stderr and "Traceback" not in proc.stderr


def test_harbors_version_choice():
    assert registry.pick_version(["1.0", "head", "2.0"]) == "head"
    assert registry.pick_version(["1.0", "10.0", "2.0"]) == "10.0"
    assert registry.pick_version(["beta", "alpha"]) == "beta"
    assert registry.pick_version(["x", "0.9"]) == "0.9"


def test_a_bad_registry_file_is_one_line(tmp_path):
    bad = tmp_path / "registry.json"
    bad.write_text('{"not": "a list"}')
    with pytest.raises(DatasetError, match="not a Harbor registry file"):
        _bench(tmp_path, dataset="x@1", registry_path=str(bad)).load()
    with pytest.raises(DatasetError, match="no such file"):
        _bench(tmp_path, dataset="x@1", registry_path=str(tmp_path / "none.json")).load()


HARBOR_RESOLVES = r"""
import asyncio, json, sys
from pathlib import Path
from harbor.registry.client.json import JsonRegistryClient

payload = json.load(sys.stdin)
client = JsonRegistryClient(path=Path(payload["registry"]))
out = {}
for ref in payload["refs"]:
    try:
        meta = asyncio.run(client.get_dataset_metadata(ref))
        out[ref] = {"version": meta.version, "tasks": [[t.get_name(), t.git_url, t.git_commit_id, str(t.path)]
                                                       for t in meta.task_ids]}
    except ValueError as exc:
        out[ref] = {"error": str(exc)}
print(json.dumps(out))
"""


def test_resolution_agrees_with_harbors_own_client(harbor_registry, tmp_path):
    """Harbor 0.26's JsonRegistryClient, in its reference venv, on the same registry file: the same version
    choice, the same tasks (name, git URL, commit, path) and the same unknown names and versions."""
    from agentcompass.testing.reference import run_reference
    from tests.benchmarks.swebench.conftest import need_reference

    need_reference("harbor")
    path, _ = harbor_registry
    versions = json.loads(path.read_text())
    versions.append({"name": "multi", "version": "head", "description": "", "tasks": []})
    versions += [{"name": "multi", "version": v, "description": "", "tasks": []} for v in ("1.10", "1.9", "x")]
    versions += [{"name": "sem", "version": v, "description": "", "tasks": []} for v in ("1.9", "1.10", "x")]
    versions += [{"name": "lex", "version": v, "description": "", "tasks": []} for v in ("b", "c", "a")]
    path.write_text(json.dumps(versions))
    refs = ["one@1.0", "two@2.0", "two@1.5", "two", "multi", "sem", "lex", "three@1.0", "two@9"]
    theirs = run_reference("harbor", HARBOR_RESOLVES, {"registry": str(path), "refs": refs}, timeout=300)
    datasets = json.loads(path.read_text())
    for ref in refs:
        try:
            spec = registry.resolve(datasets, ref, str(path))
        except DatasetError:
            assert "error" in theirs[ref], (ref, theirs[ref])
            continue
        tasks = [
            [registry._task_dir_name(t["path"]), t["git_url"], t["git_commit_id"], t["path"]] for t in spec["tasks"]
        ]
        assert {"version": spec["version"], "tasks": tasks} == theirs[ref], ref
    assert theirs["two"]["version"] == "2.0" and theirs["multi"]["version"] == "head"
    assert theirs["sem"]["version"] == "1.10" and theirs["lex"]["version"] == "c"
