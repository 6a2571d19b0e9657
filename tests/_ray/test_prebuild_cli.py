"""``agentcompass images prebuild``: on this machine with an environment that builds no images, and bad input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agentcompass", "images", *argv],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_prebuild_with_an_environment_that_has_no_images():
    res = _cli("prebuild", "demo", "--env", "local")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().startswith("this machine (") and "local): 0 images ready, 0 failed" in res.stdout
    assert "environment provider 'local' has no images to build" in res.stdout


def test_prebuild_bad_input_is_one_line():
    res = _cli("prebuild", "nosuch", "--env", "local")
    assert res.returncode == 2 and "unknown benchmark 'nosuch'" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert _cli("build-base", "--help").returncode == 0
