"""Shared fixtures of the Terminal-Bench tests: the fixture task directories and a local bare git repository
holding them (pushed in a real ``git`` subprocess, served through a ``file://`` URL)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "data"
TB2_TASKS = DATA / "tb2_tasks"
TB2_SPECIAL = DATA / "tb2_special"
TB1_TASKS = DATA / "tb1_tasks"
VALID_TB2 = ["fix-script", "hello-file", "multi-reward"]  # tasks with a valid reward
LOADED_TB2 = ["fix-script", "hello-file", "multi-reward", "no-reward"]  # broken-conflict is skipped


def git(*args: str, cwd: Path | None = None) -> str:
    res = subprocess.run(
        [
            "git",
            "-c",
            "user.name=tests",
            "-c",
            "user.email=tests@example.invalid",
            "-c",
            "init.defaultBranch=main",
            *args,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


@dataclass
class TaskRepo:
    """A bare repository with two commits: ``first`` (tasks at the root) and ``second`` (moved under tasks/)."""

    bare: Path
    url: str
    first: str
    second: str


@pytest.fixture
def task_repo(tmp_path) -> TaskRepo:
    bare, work = tmp_path / "remote" / "tasks.git", tmp_path / "work"
    git("init", "-q", "--bare", str(bare))
    git("init", "-q", str(work))
    shutil.copytree(TB2_TASKS, work, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    (work / "README.md").write_text("fixture tasks\n")
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "tasks at the root", cwd=work)
    first = git("rev-parse", "HEAD", cwd=work)
    (work / "tasks").mkdir()
    for child in sorted(TB2_TASKS.iterdir()):
        git("mv", child.name, f"tasks/{child.name}", cwd=work)
    git("commit", "-q", "-m", "tasks under tasks/", cwd=work)
    second = git("rev-parse", "HEAD", cwd=work)
    git("push", "-q", str(bare), "HEAD:refs/heads/main", cwd=work)
    git("tag", "v1", first, cwd=work)
    git("push", "-q", str(bare), "v1", cwd=work)
    return TaskRepo(bare=bare, url=f"file://{bare}", first=first, second=second)
