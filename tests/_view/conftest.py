"""Fixtures of the viewer tests: real runs made once per session, the read-only server over them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests._view import runs


@dataclass
class ViewRuns:
    results: Path
    dirs: dict[str, Path]
    outputs: dict[str, dict[str, Any]]

    def key(self, name: str) -> str:
        d = self.dirs[name]
        return f"{self.results.name}/{d.parent.name}/{d.name}"


@pytest.fixture(scope="session")
def view_runs(tmp_path_factory) -> ViewRuns:
    from tests.harnesses.mini_swe_agent.conftest import require_reference

    require_reference()  # the SWE-bench run's mini_swe_agent is the mini-swe-agent package itself
    root = tmp_path_factory.mktemp("view")
    results = root / "results"
    outputs = dict(runs.demo_runs(results))
    outputs["flaky"] = runs.probe_run(results)
    outputs["terminus2"] = runs.terminus2_run(results)
    outputs["swebench"] = runs.swebench_run(results, root / "data")
    dirs = {name: Path(out["paths"]["run_dir"]) for name, out in outputs.items()}
    return ViewRuns(results, dirs, outputs)
