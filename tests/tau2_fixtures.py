"""Fixtures of the τ²-bench tests: the tau2-bench snapshot of shared/data unpacked once per session, and the
reference package (tau2 1.0.1) in its own Python 3.12 venv (scripts/ensure_reference.sh tau2)."""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

import pytest

from agentcompass.testing.reference import reference_python, run_reference

SNAPSHOT = "tau2-bench-a2c0247"


def shared_data_dir() -> Path:
    env = os.environ.get("AGENTCOMPASS_SHARED_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def tau2_root(tmp_path_factory) -> Path:
    """The tau2-bench repository at commit a2c0247 (source and data), unpacked from shared/data."""
    archive = shared_data_dir() / f"{SNAPSHOT}.tar.gz"
    if not archive.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"the τ²-bench snapshot {archive} is missing")
        pytest.skip(f"the τ²-bench snapshot {archive} is missing")
    dest = tmp_path_factory.mktemp("tau2")
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    return dest / SNAPSHOT


@pytest.fixture(scope="session")
def tau2_reference(tau2_root):
    """``run(script, payload)``: run Python source in the reference venv (tau2 importable, its data at the snapshot's
    data/), payload as JSON on stdin; the script prints one JSON document, returned."""
    if reference_python("tau2") is None:
        if os.environ.get("CI"):
            pytest.fail("the tau2 reference venv is missing: run scripts/ensure_reference.sh tau2")
        pytest.skip("the tau2 reference venv is missing: run scripts/ensure_reference.sh tau2")
    os.environ["TAU2_DATA_DIR"] = str(tau2_root / "data")

    def run(script: str, payload=None, timeout: float = 900.0):
        return run_reference("tau2", script, payload, timeout=timeout)

    return run
