"""``oracle`` through ``run_evaluation`` against the package's own ground-truth pipeline (``GroundTruthPipeline``
run by ``TaskSuite.run_task_with_pipeline``), suite by suite, on every user task of the latest version; and the
benchmark conformance suite on banking and slack user tasks the ground truth passes and doing nothing fails."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentcompass.testing.conformance.benchmark import BenchmarkSuite

pytest.importorskip("agentdojo")


def package_ground_truth_utility() -> dict[str, dict[str, bool]]:
    """{suite: {user task id: utility}} of the package's ground-truth pipeline on the latest version."""
    from agentdojo.agent_pipeline.ground_truth_pipeline import GroundTruthPipeline
    from agentdojo.task_suite.load_suites import get_suites

    out: dict[str, dict[str, bool]] = {}
    for name, suite in get_suites("v1.2.2").items():
        out[name] = {
            tid: bool(suite.run_task_with_pipeline(GroundTruthPipeline(task), task, None, {})[0])
            for tid, task in suite.user_tasks.items()
        }
    return out


@pytest.mark.slow
def test_oracle_utility_equals_the_package_ground_truth_pipeline_suite_by_suite(tmp_path: Path) -> None:
    from agentcompass import run_evaluation

    result = run_evaluation(
        benchmark="agentdojo",
        harness="oracle",
        model="none",
        environment="memory",
        benchmark_params={"attack": "none"},
        results_dir=str(tmp_path),
        progress="none",
        log_level="WARNING",
    )
    rows = [json.loads(line) for line in Path(result["paths"]["results"]).read_text().splitlines() if line.strip()]
    ours: dict[str, dict[str, bool]] = {}
    for row in rows:
        assert row["status"] == "completed", row
        suite, user = row["task_id"].split("/")
        ours.setdefault(suite, {})[user] = row["reward"] == 1.0
    reference = package_ground_truth_utility()
    assert ours == reference
    counts = {s: (sum(v.values()), len(v)) for s, v in reference.items()}
    assert sum(n for _, n in counts.values()) == 97, counts  # 40 + 20 + 16 + 21 user tasks in v1.2.2
    report = json.loads(Path(result["paths"]["agentdojo_results"]).read_text())["results"]
    for suite, (passed, n) in counts.items():
        figure = report[suite]["utility"]
        assert (figure["value"], figure["n"], figure["ci"]["method"]) == (passed / n, n, "wilson")
        assert figure["ci"]["low"] <= figure["value"] <= figure["ci"]["high"]
    assert result["metrics"]["benchmark_figures"] == report  # the same figures, with intervals, in summary.json
    summary = json.loads(Path(result["paths"]["summary"]).read_text())
    assert summary["metrics"]["benchmark_figures"] == report


class TestAgentDojoBenchmark(BenchmarkSuite):
    """Utility tasks: the ground truth passes them and saying nothing fails them (the package's verdicts)."""

    BENCHMARK = "agentdojo"
    SUBSET = ["banking/user_task_0", "banking/user_task_3", "slack/user_task_1"]

    @pytest.fixture(scope="class")
    @classmethod
    def request_kwargs(cls) -> dict[str, Any]:
        return {"environment": "memory"}
