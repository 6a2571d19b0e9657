"""A tiny SWE-bench-format dataset made on the fly: the ``calc`` repository with a bug in ``add``.

``make_calc(root)`` creates the git repo, the gold ``patch``, the ``test_patch``, FAIL_TO_PASS / PASS_TO_PASS
and returns the instance row; ``write_jsonl`` / ``write_parquet`` / ``write_json`` store rows in the
on-disk formats; ``build_image`` builds an image with the repo at /testbed FROM the local base image.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

BASE_IMAGE = "agentcompass/base:bookworm"
INSTANCE_ID = "calc__calc-1"
IMAGE_REPO = "agentcompass-test/swebench-calc"
IMAGE_TAG = f"{IMAGE_REPO}:1"

OPS = '''"""Arithmetic operations."""


def add(a, b):
    """Return the sum of a and b."""
    return a - b


def sub(a, b):
    """Return a minus b."""
    return a - b


def mul(a, b):
    return a * b
'''
TESTS = """from calc.ops import add, mul, sub


def test_sub():
    assert sub(5, 3) == 2


def test_mul():
    assert mul(2, 4) == 8
"""
TESTS_ADDED = (
    TESTS
    + """

def test_add_fixed():
    assert add(2, 3) == 5


def test_add_negative():
    assert add(-2, -3) == -5
"""
)
GOLD_OPS = OPS.replace("return a - b\n\n\ndef sub", "return a + b\n\n\ndef sub")
WRONG_OPS = OPS.replace("return a - b\n\n\ndef sub", "return a * b\n\n\ndef sub")
HALF_OPS = OPS.replace("return a - b\n\n\ndef sub", "return abs(a) + abs(b)\n\n\ndef sub")
PROBLEM = "calc.ops.add returns the difference of its arguments instead of their sum: add(2, 3) gives -1."

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True, text=True).stdout


def _diff_of(repo: Path, rel: str, new_text: str) -> str:
    path = repo / rel
    old = path.read_text()
    path.write_text(new_text)
    diff = git(repo, "diff", "--", rel)
    path.write_text(old)
    return diff


def make_calc(root: Path) -> dict[str, Any]:
    """Create ``root/calc`` (a git repo at the buggy base commit) and return its SWE-bench instance row."""
    repo = root / "calc"
    (repo / "calc").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "calc" / "__init__.py").write_text("")
    (repo / "calc" / "ops.py").write_text(OPS)
    (repo / "tests" / "test_ops.py").write_text(TESTS)
    (repo / "conftest.py").write_text("# puts the repository root on sys.path for pytest\n")
    (repo / "README.md").write_text("calc\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD").strip()
    return {
        "instance_id": INSTANCE_ID,
        "repo": "calc/calc",
        "base_commit": base,
        "patch": _diff_of(repo, "calc/ops.py", GOLD_OPS),
        "test_patch": _diff_of(repo, "tests/test_ops.py", TESTS_ADDED),
        "problem_statement": PROBLEM,
        "hints_text": "",
        "created_at": "2024-01-01T00:00:00Z",
        "version": "0.1",
        "FAIL_TO_PASS": json.dumps(["tests/test_ops.py::test_add_fixed", "tests/test_ops.py::test_add_negative"]),
        "PASS_TO_PASS": json.dumps(["tests/test_ops.py::test_sub", "tests/test_ops.py::test_mul"]),
        "environment_setup_commit": base,
        "difficulty": "<15 min fix",
    }


def patch_for(repo: Path, new_ops: str) -> str:
    """A model patch that rewrites calc/ops.py to ``new_ops``."""
    return _diff_of(repo, "calc/ops.py", new_ops)


def write_jsonl(rows: list[dict[str, Any]], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def write_json(rows: list[dict[str, Any]], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rows, indent=1))
    return path


def write_parquet(rows: list[dict[str, Any]], path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def build_image(repo: Path, tag: str = IMAGE_TAG, base: str = BASE_IMAGE) -> str:
    """An image with the repo at /testbed (HEAD = base commit) FROM the local base image."""
    ctx = repo.parent / f"image-{tag.replace('/', '_').replace(':', '_')}"
    if ctx.exists():
        shutil.rmtree(ctx)
    ctx.mkdir()
    shutil.copytree(repo, ctx / "testbed")
    (ctx / "Dockerfile").write_text(
        f"FROM {base}\n"
        "COPY testbed /testbed\n"
        'RUN command -v pytest >/dev/null || ln -s "$(command -v pytest-3)" /usr/local/bin/pytest\n'
        "WORKDIR /testbed\n"
    )
    subprocess.run(
        ["docker", "build", "-q", "--label", "agentcompass.test=1", "-t", tag, str(ctx)],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return tag
