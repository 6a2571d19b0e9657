"""``_config/compose_cache.py``: a request composed by Hydra in one process is found by the next one (which then
imports no Hydra composer) with the same result; interpolations are still resolved per call; an unreadable or
foreign file is a miss; ``AGENTCOMPASS_COMPOSE_CACHE=0`` keeps nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
COMPOSE = r"""
import json, sys
from agentcompass._sdk import compose_from_kwargs
resolved = compose_from_kwargs({
    "benchmark": "synthetic", "harness": "nop", "model": "none", "environment": "memory",
    "overrides": ["benchmark.n_tasks=3", "output.run_name=${oc.env:AC_TEST_NAME}"],
})
print(json.dumps({"data": resolved.data, "hydra": "hydra.compose" in sys.modules}, default=str))
"""


def compose(data_dir: Path, name: str, **env: str) -> dict:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCOMPASS_")}
    environ.update(AGENTCOMPASS_DATA_DIR=str(data_dir), AC_TEST_NAME=name, **env)
    out = subprocess.run(
        [sys.executable, "-c", COMPOSE], capture_output=True, text=True, cwd=REPO, env=environ, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def kept(data_dir: Path) -> list[Path]:
    return sorted((data_dir / "compose").glob("*.json"))


def test_the_next_process_composes_from_the_kept_config(tmp_path):
    first = compose(tmp_path, "alpha")
    assert first["hydra"] is True  # composed by Hydra
    [path] = kept(tmp_path)
    second = compose(tmp_path, "beta")
    assert second["hydra"] is False  # found: no Hydra composer imported
    assert second["data"]["output"]["run_name"] == "beta"  # the interpolation resolved in this call
    second["data"]["output"]["run_name"] = "alpha"
    assert second["data"] == first["data"]
    assert kept(tmp_path) == [path]


def test_a_foreign_or_torn_file_is_a_miss_and_is_replaced(tmp_path):
    reference = compose(tmp_path, "alpha")
    [path] = kept(tmp_path)
    text = path.read_text()
    record = json.loads(text)
    record["key"] += "x"  # another key under this name
    record["config"]["benchmark"]["n_tasks"] = 99
    for broken in (json.dumps(record), text[: len(text) // 2]):
        path.write_text(broken)
        again = compose(tmp_path, "alpha")
        assert again["hydra"] is True and again["data"] == reference["data"]
        assert path.read_text() == text  # kept again, whole


def test_turned_off_nothing_is_kept(tmp_path):
    for _ in range(2):
        assert compose(tmp_path, "alpha", AGENTCOMPASS_COMPOSE_CACHE="0")["hydra"] is True
    assert kept(tmp_path) == []
