"""The plug-in's own tests: agentcompass's conformance suites, subclassed unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from agentcompass.interfaces import Task
from agentcompass.testing.conformance.benchmark import BenchmarkSuite
from agentcompass.testing.conformance.harness import HarnessSuite


class TestEchoBenchmark(BenchmarkSuite):
    BENCHMARK = "echo"
    SUBSET = ["echo-0", "echo-2"]

    @pytest.fixture(scope="class")
    @classmethod
    def request_kwargs(cls) -> dict[str, Any]:
        return {"environment": "memory"}


class TestEchoAgent(HarnessSuite):
    HARNESS = "echo_agent"
    EXIT_STATUS = "submitted"
    READ_BACK = {"/app/answer.txt": b"hi\n"}

    def task(self) -> Task:
        return Task(id="echo-hi", instruction="Say the word: hi", workdir="/app")
