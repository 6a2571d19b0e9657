"""The ``history: base_only`` script on a host checkout (no engine): it leaves nothing after the base commit and
refuses (a failed image build) a repository whose HEAD is not the base commit."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agentcompass.benchmarks.swebench import history
from tests.benchmarks.swebench import fixture


def _harden(tmp_path: Path, repo: Path, base: str) -> subprocess.CompletedProcess[str]:
    script = history.context(tmp_path / "data") / history.HARDEN
    env = {**fixture.GIT_ENV, "HOME": str(tmp_path)}
    return subprocess.run(["bash", str(script), str(repo), base], env=env, capture_output=True, text=True, timeout=60)


def _with_future(tmp_path: Path) -> tuple[Path, dict, str]:
    row = fixture.make_calc(tmp_path)
    repo, git = tmp_path / "calc", fixture.git
    (repo / "calc" / "ops.py").write_text(fixture.GOLD_OPS)
    git(repo, "commit", "-qam", "the fix")
    later = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "tag", "v1.0")
    git(repo, "update-ref", "refs/remotes/origin/main", later)
    git(repo, "remote", "add", "origin", "https://example.invalid/calc.git")
    return repo, row, later


def test_nothing_after_the_base_commit_is_left(tmp_path):
    repo, row, later = _with_future(tmp_path)
    fixture.git(repo, "reset", "-q", "--hard", row["base_commit"])
    done = _harden(tmp_path, repo, row["base_commit"])
    assert done.returncode == 0, done.stderr
    assert fixture.git(repo, "log", "--all", "--format=%H").split() == [row["base_commit"]]
    assert fixture.git(repo, "tag") == "" and fixture.git(repo, "reflog") == "" and fixture.git(repo, "remote") == ""
    probe = subprocess.run(["git", "cat-file", "-e", later], cwd=repo, env=fixture.GIT_ENV, capture_output=True)
    assert probe.returncode != 0
    assert (repo / "calc" / "ops.py").read_text() == fixture.OPS  # the working tree is the base commit's


def test_a_head_that_is_not_the_base_commit_fails_the_build(tmp_path):
    repo, row, later = _with_future(tmp_path)
    done = _harden(tmp_path, repo, row["base_commit"])
    assert done.returncode == 3 and "not the base commit" in done.stderr
    assert fixture.git(repo, "rev-parse", "v1.0").strip() == later  # nothing was changed
