"""Fixtures of the mini_swe_agent tests: the published package as a reference, a small git repository task."""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

CALC = """def add(a, b):
    return a - b


def sub(a, b):
    return a - b
"""


def require_reference() -> None:
    """The installed mini-swe-agent package (and its LiteLLM): skip without it, fail under CI."""
    missing = [m for m in ("minisweagent", "litellm") if importlib.util.find_spec(m) is None]
    if missing:
        message = (
            f"the mini-swe-agent reference is not installed (missing {', '.join(missing)}): "
            f"pip install 'agentcompass[test]'"
        )
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


def make_repo(path: Path) -> Path:
    """A git repository with one committed file (``calc.py``, a bug in ``add``)."""
    path.mkdir(parents=True)
    (path / "calc.py").write_text(CALC)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    }
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-qm", "base"]):
        subprocess.run(cmd, cwd=path, env=env, check=True, capture_output=True)
    return path


@pytest.fixture(scope="session")
def repo(tmp_path_factory) -> Path:
    return make_repo(tmp_path_factory.mktemp("msa-repo") / "calc")
