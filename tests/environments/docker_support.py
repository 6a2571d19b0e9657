"""Docker test support: engine start (scripts/ensure_docker.sh), labels of test containers, teardown.

Containers started by this test session carry ``agentcompass.test=1`` and ``agentcompass.test.session=<id>``;
teardown removes only this session's, so parallel test sessions on one engine do not disturb each other.
"""

from __future__ import annotations

import functools
import os
import subprocess
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SESSION = uuid.uuid4().hex[:12]
TEST_LABELS = {"agentcompass.test": "1", "agentcompass.test.session": SESSION}
# containers that live as long as a test class (conformance suites): spared by the per-test teardown
SUITE_LABELS = {"agentcompass.test": "1", "agentcompass.test.session": f"{SESSION}-class"}
BASE_IMAGE = os.environ.get("AGENTCOMPASS_BASE_IMAGE", "agentcompass/base:bookworm")


@functools.lru_cache(maxsize=1)
def engine_problem() -> str | None:
    """None when a Docker engine answers and the base image exists (started/built when needed)."""
    script = REPO / "scripts" / "ensure_docker.sh"
    try:
        res = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=1200)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"scripts/ensure_docker.sh could not run: {exc}"
    if res.returncode != 0:
        return "scripts/ensure_docker.sh failed: " + (res.stderr.strip().splitlines() or ["?"])[-1]
    return None


def require_engine() -> None:
    """Skip the test when there is no engine; fail it instead when the CI variable is set."""
    problem = engine_problem()
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"CI: the Docker engine is required: {problem}", pytrace=False)
        pytest.skip(problem)


def api():
    import docker

    return docker.from_env().api


def session_containers(extra: dict[str, str] | None = None, all_sessions: bool = False) -> list[dict]:
    labels = {"agentcompass.test": "1"} if all_sessions else dict(TEST_LABELS)
    labels.update(extra or {})
    return api().containers(all=True, filters={"label": [f"{k}={v}" for k, v in labels.items()]})


def remove_session_containers(labels: dict[str, str] | None = None) -> int:
    """Remove this session's test containers (or those carrying ``labels``)."""
    client = api()
    found = (
        api().containers(all=True, filters={"label": [f"{k}={v}" for k, v in labels.items()]})
        if labels
        else session_containers()
    )
    for c in found:
        try:
            client.remove_container(c["Id"], v=True, force=True)
        except Exception:
            pass
    return len(found)
