"""``history: base_only``: a fixture repository with a later commit, a tag on it, a branch, a remote-tracking ref,
a stash and reflog entries; in the environment built from its image, ``git log --all``, ``git tag``, ``git reflog``
and ``git cat-file -e <later sha>`` reveal nothing after the base commit. ``history: full`` (the image as
published) still shows the later commit, so the check can fail."""

from __future__ import annotations

import asyncio
import subprocess
import uuid
from pathlib import Path

import pytest

from agentcompass.interfaces import ComponentContext
from tests.benchmarks.swebench import fixture
from tests.benchmarks.swebench.conftest import derived_images, make_bench
from tests.environments.docker_support import TEST_LABELS, remove_session_containers

pytestmark = [pytest.mark.docker, pytest.mark.slow]
PROBE = (
    "git log --all --format=%H; echo @tags; git tag; echo @reflog; git reflog; echo @stash; git stash list; "
    "echo @refs; git for-each-ref; echo @status; git status --porcelain; echo @head; git rev-parse HEAD; "
    "echo @later; git cat-file -e {later} && echo present || echo absent"
)


@pytest.fixture
def future_repo(tmp_path, docker_ready):
    """The calc repository at its base commit, with a later commit and everything that can point at it."""
    row = fixture.make_calc(tmp_path)
    row["instance_id"] = f"calc__calc-{uuid.uuid4().hex[:8]}"  # its own image names (removed at the end)
    repo, git = tmp_path / "calc", fixture.git
    (repo / "calc" / "ops.py").write_text(fixture.GOLD_OPS)
    git(repo, "commit", "-qam", "the fix")
    later = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "tag", "-a", "v1.0", "-m", "release")
    git(repo, "branch", "future")
    git(repo, "update-ref", "refs/remotes/origin/main", later)
    git(repo, "reset", "-q", "--hard", row["base_commit"])  # main back at the base: the fix only in the reflog
    (repo / "README.md").write_text("stashed\n")
    git(repo, "stash", "-q")
    tag = fixture.build_image(repo, f"{fixture.IMAGE_REPO}:{uuid.uuid4().hex[:12]}")
    yield row, later, tag
    subprocess.run(["docker", "rmi", "-f", *derived_images(tag), tag], capture_output=True, check=False)


def _probe(tmp_path: Path, row: dict, image: str, later: str, history: str) -> str:
    from agentcompass.environments.docker import DockerProvider
    from agentcompass.environments.docker.config import DockerConfig

    path = fixture.write_jsonl([row], tmp_path / f"{history}.jsonl")
    bench = make_bench(tmp_path / "data", dataset_path=str(path), image_template=image, history=history)
    task = bench.load()[0]

    async def go() -> str:
        provider = DockerProvider(DockerConfig(pull_policy="never"), ComponentContext(data_dir=tmp_path / "data"))
        spec = bench.env_spec(task)
        spec.labels.update({**TEST_LABELS, "agentcompass.run_id": "swebench-history"})
        env = await provider.open(spec)
        try:
            res = await env.exec(PROBE.format(later=later), cwd="/testbed", timeout=120)
            return res.stdout + res.stderr
        finally:
            await env.close()
            await provider.aclose()

    try:
        return asyncio.run(go())
    finally:
        remove_session_containers()


def test_the_built_image_holds_nothing_after_the_base_commit(tmp_path, future_repo):
    row, later, image = future_repo
    full = _probe(tmp_path, row, image, later, "full")
    assert later in full and "v1.0" in full and "present" in full.split("@later")[1]  # the exploit, unhardened
    out = _probe(tmp_path, row, image, later, "base_only")
    sections = dict(part.split("\n", 1) for part in ("@all\n" + out).split("@")[1:])
    assert later not in out and "future" not in out and "origin" not in out
    assert sections["all"].split() == [row["base_commit"]]  # git log --all: the base commit alone
    assert sections["tags"].strip() == "" and sections["reflog"].strip() == "" and sections["stash"].strip() == ""
    assert sections["head"].strip() == row["base_commit"] and sections["status"].strip() == ""
    assert sections["later"].strip() == "absent"
