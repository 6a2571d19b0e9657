"""Tasks from a git repository: a local bare repository, ``file://`` URLs, real ``git`` subprocesses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentcompass._config.compose import component_config
from agentcompass._config.registry import build
from agentcompass.benchmarks.terminal_bench.benchmark import TerminalBenchBenchmark, TerminalBenchConfig
from agentcompass.benchmarks.terminal_bench.source import MARKER, checkout_dir, repo_name
from agentcompass.errors import ConfigError, DatasetError
from agentcompass.interfaces import ComponentContext
from tests.benchmarks.terminal_bench.conftest import LOADED_TB2


def bench(data_dir: Path, **kw) -> TerminalBenchBenchmark:
    return TerminalBenchBenchmark(TerminalBenchConfig(**kw), ComponentContext(data_dir=data_dir))


def leftovers(data_dir: Path) -> list[str]:
    folder = data_dir / "terminal_bench"
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) if folder.is_dir() else []


def test_commit_checkout_is_cached_and_reused_offline(tmp_path, task_repo):
    data = tmp_path / "data"
    b = bench(data, repo_url=task_repo.url, revision=task_repo.first)
    assert [t.id for t in b.load()] == LOADED_TB2
    target = data / "terminal_bench" / f"tasks@{task_repo.first}"
    assert b.checkout.path == target and b.checkout.commit == task_repo.first and b.checkout.reused is False
    assert json.loads((target / MARKER).read_text())["commit"] == task_repo.first
    assert [p.task_id for p in b.problems] == ["broken-conflict"]  # malformed tasks still reported
    inode = target.stat().st_ino
    shutil.rmtree(task_repo.bare)  # the second run must not need the remote
    again = bench(data, repo_url=task_repo.url, revision=task_repo.first, sample_ids=["hello-file"])
    assert [t.id for t in again.load()] == ["hello-file"]
    assert again.checkout.reused is True and target.stat().st_ino == inode
    paths = again.finalize(tmp_path, [])
    source = json.loads(Path(paths["dataset_source"]).read_text())
    assert source == {
        "path": str(target),
        "repo_url": task_repo.url,
        "revision": task_repo.first,
        "commit": task_repo.first,
        "reused": True,
    }
    assert leftovers(data) == []


@pytest.mark.parametrize("revision,expected", [("main", "second"), ("v1", "first"), ("short", "first")])
def test_branch_tag_and_short_commit(tmp_path, task_repo, revision, expected):
    rev = task_repo.first[:10] if revision == "short" else revision  # a short id needs the full-fetch fallback
    b = bench(tmp_path, repo_url=task_repo.url, revision=rev)
    assert [t.id for t in b.load()] == LOADED_TB2  # main: found under tasks/ automatically
    assert b.checkout.commit == getattr(task_repo, expected)
    assert b.checkout.path.name == f"tasks@{rev}"


def test_subdir(tmp_path, task_repo):
    b = bench(tmp_path, repo_url=task_repo.url, revision="main", subdir="tasks", sample_ids=["fix-script"])
    [task] = b.load()
    assert task.dockerfile_dir == b.checkout.path / "tasks/fix-script/environment"
    with pytest.raises(DatasetError, match=r"subdir='nope': no such folder in file://.* at revision 'main'"):
        bench(tmp_path, repo_url=task_repo.url, revision="main", subdir="nope").load()


def test_dataset_path_wins_over_repo_url(tmp_path, task_repo):
    local = tmp_path / "local"
    shutil.copytree(task_repo.bare.parent.parent / "work" / "tasks" / "hello-file", local / "hello-file")
    b = bench(tmp_path / "data", dataset_path=str(local), repo_url="file:///nonexistent/repo.git")
    assert [t.id for t in b.load()] == ["hello-file"] and b.checkout is None
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("what", ["no repository", "unknown revision"])
def test_failed_fetch_explains_dataset_path_and_leaves_nothing(tmp_path, task_repo, what):
    url = "file:///nonexistent/repo.git" if what == "no repository" else task_repo.url
    b = bench(tmp_path, repo_url=url, revision="main" if what == "no repository" else "no-such-branch")
    with pytest.raises(DatasetError) as info:
        b.load()
    message = str(info.value)
    assert f"cannot fetch tasks from {url}" in message and "benchmark_params.dataset_path" in message
    assert leftovers(tmp_path) == []  # no partial checkout
    revision = "main" if what == "no repository" else "no-such-branch"
    assert not checkout_dir(tmp_path, url, revision).exists()


def test_a_stale_or_foreign_checkout_is_replaced(tmp_path, task_repo):
    target = checkout_dir(tmp_path, task_repo.url, task_repo.first)
    target.mkdir(parents=True)
    (target / "junk.txt").write_text("half-written by a killed run")
    b = bench(tmp_path, repo_url=task_repo.url, revision=task_repo.first)
    assert [t.id for t in b.load()] == LOADED_TB2 and not (target / "junk.txt").exists()
    assert leftovers(tmp_path) == []


def test_no_source_at_all_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="dataset_path is required.*or repo_url"):
        bench(tmp_path).load()


def test_repo_names():
    assert repo_name("https://github.com/harbor-framework/terminal-bench-2-1.git") == "terminal-bench-2-1"
    assert (
        repo_name("https://huggingface.co/datasets/zai-org/terminal-bench-2-verified/") == "terminal-bench-2-verified"
    )
    assert repo_name("git@github.com:org/repo.git") == "repo"


@pytest.mark.parametrize(
    "name,url,subdir",
    [
        ("terminal_bench_2", "https://github.com/laude-institute/terminal-bench-2.git", None),
        ("terminal_bench_2_1", "https://github.com/harbor-framework/terminal-bench-2-1.git", "tasks"),
        ("terminal_bench_2_verified", "https://huggingface.co/datasets/zai-org/terminal-bench-2-verified", None),
    ],
)
def test_published_benchmark_configs(tmp_path, task_repo, name, url, subdir):
    cfg = component_config("benchmark", name)
    assert (cfg["repo_url"], cfg["subdir"]) == (url, subdir) and cfg["revision"]
    ctx = ComponentContext(data_dir=tmp_path)
    b = build("benchmark", cfg, ctx)
    assert b.id == name
    # a user overrides the source: here with the local repository (subdir kept from the config)
    override = build("benchmark", {**cfg, "repo_url": task_repo.url, "revision": "main"}, ctx)
    assert [t.id for t in override.load()] == LOADED_TB2
