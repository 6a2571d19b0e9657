"""Every bundled harness against the harness conformance suite: a scripted conversation replayed through it (the
scripted model server over HTTP, a real local environment)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from agentcompass._config.registry import build, conf_dir
from agentcompass.benchmarks.demo import DemoBenchmark, DemoConfig
from agentcompass.interfaces import ComponentContext, Task
from agentcompass.testing.conformance.harness import HarnessSuite, ModelHarnessSuite

USAGE = {"input_tokens": 100, "output_tokens": 10}


def from_conf(harness_id: str, tmp_dir: Path, **params: Any) -> Any:
    """The harness as a request builds it: its conf/harness/<id>.yaml, ``params`` merged over it."""
    cfg = yaml.safe_load((conf_dir() / "harness" / f"{harness_id}.yaml").read_text())
    return build("harness", {**cfg, **params}, ComponentContext(data_dir=tmp_dir, harness_id=harness_id))


class TestOracleHarness(HarnessSuite):
    EXIT_STATUS = "completed"
    READ_BACK = {"/app/hello.txt": b"Hello, world!\n"}

    def make_harness(self, tmp_dir: Path) -> Any:
        return from_conf("oracle", tmp_dir)

    def task(self) -> Task:
        return next(t for t in DemoBenchmark(DemoConfig(sample_ids=["hello-file"])).load())

    def replay_kwargs(self, tmp_dir: Path) -> dict[str, Any]:
        return {"benchmark": DemoBenchmark(DemoConfig(sample_ids=["hello-file"]))}


class TestNopHarness(HarnessSuite):
    EXIT_STATUS = "completed"

    def make_harness(self, tmp_dir: Path) -> Any:
        return from_conf("nop", tmp_dir)


class TestPredictionsHarness(HarnessSuite):
    """The SWE-bench predictions input ('gold': the dataset's own patches) of the generated calc instance."""

    EXIT_STATUS = "submitted"

    def make_harness(self, tmp_dir: Path) -> Any:
        from agentcompass.benchmarks.swebench.benchmark import SWEBenchBenchmark, SWEBenchConfig
        from tests.benchmarks.swebench import fixture
        from tests.benchmarks.swebench.conftest import CALC_SPECS

        row = fixture.make_calc(tmp_dir)
        data = fixture.write_jsonl([row], tmp_dir / "calc.jsonl")
        ctx = ComponentContext(data_dir=tmp_dir, harness_id="predictions", environment_id="docker")
        cfg = SWEBenchConfig(dataset_path=str(data), predictions_path="gold", allow_download=False,
                             repo_specs=CALC_SPECS)
        type(self).BENCH, type(self).GOLD = SWEBenchBenchmark(cfg, ctx), row["patch"]   # read by task()
        return from_conf("predictions", tmp_dir)

    def task(self) -> Task:
        return self.BENCH.load()[0]

    def replay_kwargs(self, tmp_dir: Path) -> dict[str, Any]:
        return {"benchmark": self.BENCH}

    def test_the_submission_is_the_supplied_patch(self, replayed) -> None:
        assert replayed.result.submission == self.GOLD and replayed.result.info["prediction"] is True


class TestMiniSweAgentHarness(ModelHarnessSuite):
    """mini-swe-agent 2.4.6 itself (bash tool calls): one command, then the submission."""

    EXIT_STATUS = "submitted"
    READ_BACK = {"/app/hello.txt": b"hi\n"}

    def make_harness(self, tmp_dir: Path, **params: Any) -> Any:
        from tests.harnesses.mini_swe_agent.conftest import require_reference

        require_reference()
        return from_conf("mini_swe_agent", tmp_dir, **params)

    def limited(self, tmp_dir: Path) -> tuple[Any, Any]:
        return self.make_harness(tmp_dir, step_limit=2), _tool(9, "ls")

    def replies(self) -> list[Any]:
        return [_tool(1, "echo hi > hello.txt && cat hello.txt"),
                _tool(2, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat hello.txt")]

    def test_the_submission_is_the_final_output(self, replayed) -> None:
        assert replayed.result.submission == "hi\n"


def _tool(n: int, command: str) -> dict[str, Any]:
    return {"text": "THOUGHT: next step.", "usage": USAGE,
            "tool_calls": [{"id": f"call_{n}", "name": "bash", "arguments": {"command": command}}]}


class TestTerminus2Harness(ModelHarnessSuite):
    """Harbor 0.26.0's Terminus-2 (its prompts from the reference venv), a real tmux session on this host."""

    EXIT_STATUS = "completed"
    LIMIT_HIT = "max_turns"
    READ_BACK = {"/app/hello.txt": b"hi\n"}

    def make_harness(self, tmp_dir: Path, **params: Any) -> Any:
        from tests.harnesses.terminus2.t2_support import harbor_dir

        return from_conf("terminus2", tmp_dir, templates_dir=harbor_dir(), record_terminal=False, **params)

    def limited(self, tmp_dir: Path) -> tuple[Any, Any]:
        return self.make_harness(tmp_dir, max_turns=2), _t2("echo again\n")

    def replies(self) -> list[Any]:
        return [_t2("echo hi > hello.txt\n"), _t2(task_complete=True), _t2(task_complete=True)]


def _t2(*keys: str, task_complete: bool | None = None) -> dict[str, Any]:
    from tests.harnesses.terminus2.t2_support import reply

    return {"text": reply(*keys, task_complete=task_complete), "usage": USAGE}
