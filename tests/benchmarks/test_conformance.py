"""The bundled benchmarks against the benchmark conformance suite (SWE-bench: tests/benchmarks/swebench/)."""

from __future__ import annotations

from typing import Any

import pytest

from agentcompass.benchmarks.demo import DEMO_TASKS_DIR
from agentcompass.testing.conformance.benchmark import BenchmarkSuite
from tests.benchmarks.tb_fixtures import NORMALIZED_TOML, make_task

DEMO_TASKS = sorted(p.name for p in DEMO_TASKS_DIR.iterdir() if (p / "task.toml").is_file())


class TestDemoBenchmark(BenchmarkSuite):
    """Every bundled task, in the local environment: the reference solution scores 1, doing nothing 0."""

    BENCHMARK = "demo"
    SUBSET = DEMO_TASKS

    @pytest.fixture(scope="class")
    @classmethod
    def request_kwargs(cls, tmp_path_factory) -> dict[str, Any]:
        return {"environment": "local", "environment_params": {"root_dir": str(tmp_path_factory.mktemp("demo-ws"))}}


class TestTerminalBenchBenchmark(BenchmarkSuite):
    """Fixture task directories in both task.toml forms, in the local environment."""

    BENCHMARK = "terminal_bench"
    SUBSET = ["published-a", "published-b", "normalized"]

    @pytest.fixture(scope="class")
    @classmethod
    def request_kwargs(cls, tmp_path_factory) -> dict[str, Any]:
        root = tmp_path_factory.mktemp("tb-tasks")
        make_task(root, "published-a")
        make_task(root, "published-b")
        make_task(root, "normalized", toml=NORMALIZED_TOML)
        return {
            "benchmark_params": {"dataset_path": str(root)},
            "environment": "local",
            "environment_params": {"root_dir": str(tmp_path_factory.mktemp("tb-ws"))},
        }


class TestSyntheticBenchmark(BenchmarkSuite):
    """The in-process benchmark in the memory environment."""

    BENCHMARK = "synthetic"
    SUBSET = ["syn-0", "syn-3", "syn-7"]

    @pytest.fixture(scope="class")
    @classmethod
    def request_kwargs(cls) -> dict[str, Any]:
        return {"environment": "memory"}


class TestTau2Benchmark(BenchmarkSuite):
    """τ²-bench airline from the tau2-bench snapshot of shared/data, in the memory environment (the conversation
    needs none): the gold actions score 1, stopping at once 0, on tasks that change the database."""

    BENCHMARK = "tau2_airline"
    SUBSET = ["3", "7", "8"]

    @pytest.fixture(scope="class")
    @classmethod
    def request_kwargs(cls, tau2_root) -> dict[str, Any]:
        return {"environment": "memory", "benchmark_params": {"dataset_path": str(tau2_root)}}


class TestBfclMultiTurnBenchmark(BenchmarkSuite):
    """BFCL multi-turn from the installed bfcl-eval, in the memory environment (the conversation needs none): the
    ground-truth calls score 1, stopping at once 0, in three of the four categories."""

    BENCHMARK = "bfcl_multi_turn"
    SUBSET = ["multi_turn_base_0", "multi_turn_miss_func_3", "multi_turn_long_context_5"]

    @pytest.fixture(scope="class")
    @classmethod
    def request_kwargs(cls) -> dict[str, Any]:
        return {"environment": "memory"}
