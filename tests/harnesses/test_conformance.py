"""Every bundled harness against the harness conformance suite: a scripted conversation replayed through it (the
scripted model server over HTTP, a real local environment)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentcompass.benchmarks.demo import DemoBenchmark, DemoConfig
from agentcompass.interfaces import ComponentContext, Task
from agentcompass.testing.conformance.harness import ConversingHarnessSuite, HarnessSuite, ModelHarnessSuite

USAGE = {"input_tokens": 100, "output_tokens": 10}


class TestOracleHarness(HarnessSuite):
    HARNESS = "oracle"
    EXIT_STATUS = "completed"
    READ_BACK = {"/app/hello.txt": b"Hello, world!\n"}

    def task(self) -> Task:
        return DemoBenchmark(DemoConfig(sample_ids=["hello-file"])).load()[0]

    def replay_kwargs(self, tmp_dir: Path) -> dict[str, Any]:
        return {"benchmark": DemoBenchmark(DemoConfig(sample_ids=["hello-file"]))}


class TestNopHarness(HarnessSuite):
    HARNESS = "nop"
    EXIT_STATUS = "completed"


class TestExploitHarness(HarnessSuite):
    """The reward-file exploit of the exploit harness's library (the audit's: docs/integrity.md)."""

    HARNESS = "exploit"
    EXIT_STATUS = "completed"


class TestPredictionsHarness(HarnessSuite):
    """The SWE-bench predictions input ('gold': the dataset's own patches) of the generated calc instance."""

    HARNESS = "predictions"
    EXIT_STATUS = "submitted"

    @pytest.fixture(scope="class", autouse=True)
    @classmethod
    def calc_benchmark(cls, tmp_path_factory) -> None:
        """Before the replay (autouse fixtures come first): the benchmark whose predictions are submitted."""
        from agentcompass.benchmarks.swebench.benchmark import SWEBenchBenchmark, SWEBenchConfig
        from tests.benchmarks.swebench import fixture
        from tests.benchmarks.swebench.conftest import CALC_SPECS

        root = tmp_path_factory.mktemp("calc")
        row = fixture.make_calc(root)
        data = fixture.write_jsonl([row], root / "calc.jsonl")
        ctx = ComponentContext(data_dir=root, harness_id="predictions", environment_id="docker")
        cfg = SWEBenchConfig(
            dataset_path=str(data), predictions_path="gold", allow_download=False, repo_specs=CALC_SPECS
        )
        cls.BENCH, cls.GOLD = SWEBenchBenchmark(cfg, ctx), row["patch"]

    def task(self) -> Task:
        return self.BENCH.load()[0]

    def replay_kwargs(self, tmp_dir: Path) -> dict[str, Any]:
        return {"benchmark": self.BENCH}

    def test_the_submission_is_the_supplied_patch(self, replayed) -> None:
        assert replayed.result.submission == self.GOLD and replayed.result.info["prediction"] is True


def _tool(n: int, command: str) -> dict[str, Any]:
    return {
        "text": "THOUGHT: next step.",
        "usage": USAGE,
        "tool_calls": [{"id": f"call_{n}", "name": "bash", "arguments": {"command": command}}],
    }


class TestMiniSweAgentHarness(ModelHarnessSuite):
    """mini-swe-agent 2.4.6 itself (bash tool calls): one command, then the submission."""

    HARNESS = "mini_swe_agent"
    EXIT_STATUS = "submitted"
    READ_BACK = {"/app/hello.txt": b"hi\n"}

    def harness_params(self, tmp_dir: Path) -> dict[str, Any]:
        from tests.harnesses.mini_swe_agent.conftest import require_reference

        require_reference()
        return {}

    def replies(self) -> list[Any]:
        return [
            _tool(1, "echo hi > hello.txt && cat hello.txt"),
            _tool(2, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat hello.txt"),
        ]

    def forever(self) -> Any:
        return _tool(9, "ls")

    def test_the_submission_is_the_final_output(self, replayed) -> None:
        assert replayed.result.submission == "hi\n"


def _t2(*keys: str, task_complete: bool | None = None) -> dict[str, Any]:
    from tests.harnesses.terminus2.t2_support import reply

    return {"text": reply(*keys, task_complete=task_complete), "usage": USAGE}


class TestTerminus2Harness(ModelHarnessSuite):
    """Harbor 0.26.0's Terminus-2 (its prompts from the reference venv), a real tmux session on this host."""

    HARNESS = "terminus2"
    EXIT_STATUS = "completed"
    LIMIT_PARAMS = {"max_turns": 2}
    LIMIT_HIT = "max_turns"
    READ_BACK = {"/app/hello.txt": b"hi\n"}

    def harness_params(self, tmp_dir: Path) -> dict[str, Any]:
        from tests.harnesses.terminus2.t2_support import harbor_dir

        return {"templates_dir": harbor_dir(), "record_terminal": False}

    def replies(self) -> list[Any]:
        return [_t2("echo hi > hello.txt\n"), _t2(task_complete=True), _t2(task_complete=True)]

    def forever(self) -> Any:
        return _t2("echo again\n")


class TestToolAgentHarness(ConversingHarnessSuite):
    """tool_agent on the scripted calculator conversation: two tool calls, three answers, the user's goodbye."""

    HARNESS = "tool_agent"
    EXIT_STATUS = "completed"
    LIMIT_PARAMS = {"max_steps": 2}

    def replies(self) -> list[Any]:
        add = {"tool_calls": [{"id": "c1", "name": "add", "arguments": {"a": 2, "b": 3}}], "usage": USAGE}
        rev = {"tool_calls": [{"id": "c2", "name": "reverse", "arguments": {"text": "stressed"}}], "usage": USAGE}
        texts = [{"text": t, "usage": USAGE} for t in ("The sum is 5.", "It reads desserts.", "Glad to help.")]
        return [add, texts[0], rev, texts[1], texts[2]]

    def forever(self) -> Any:
        return {"tool_calls": [{"id": "c1", "name": "reverse", "arguments": {"text": "ab"}}], "usage": USAGE}
