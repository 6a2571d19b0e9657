"""SWE-bench against the benchmark conformance suite: the generated ``calc`` instance, in a local checkout.

The local environment cannot open an instance image, so grading is ``grade_in: agent`` (the repository is
reset, the saved patch applied, the tests run); the official fresh-container grading of the same instance is
tested in Docker by test_docker_e2e.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentcompass.testing.conformance.benchmark import BenchmarkSuite
from tests.benchmarks.swebench import fixture
from tests.benchmarks.swebench.conftest import CALC_SPECS


class TestSWEBenchBenchmark(BenchmarkSuite):
    BENCHMARK = "swebench"
    SUBSET = [fixture.INSTANCE_ID]

    @pytest.fixture(scope="class")
    @classmethod
    def request_kwargs(cls, calc, tmp_path_factory) -> dict[str, Any]:
        return {
            "environment": "local",
            "benchmark_params": {
                "dataset_path": str(calc.jsonl),
                "agent_env": {},
                "allow_download": False,
                "grade_in": "agent",
                "repo_specs": CALC_SPECS,
            },
            "environment_params": {"root_dir": str(tmp_path_factory.mktemp("swe-ws"))},
            "execution_params": {"artifacts": {"prepare": [{"src": str(calc.repo), "dst": "/testbed"}]}},
            "data_dir": str(tmp_path_factory.mktemp("swe-data")),
        }
