"""Real runs for the viewer tests, made through ``run_evaluation`` (local environment, scripted model server).

- ``demo_runs``: the demo benchmark solved by ``oracle`` and by ``nop`` (every task flips), and a probe run
  whose tasks fail with a typed error (error class, traceback);
- ``terminus2_run``: terminus2 on the demo task ``hello-file``, driven by the scripted server over HTTP (its
  ``hello.txt`` saved as an artifact);
- ``swebench_run``: mini_swe_agent (the mini-swe-agent package, bash tool calls) on the generated SWE-bench
  ``calc`` instance, graded by the SWE-bench benchmark in the agent's local checkout (``grade_in: agent``: the
  local environment cannot open an instance image) with its patch, eval script, test log and report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcompass import run_evaluation
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.benchmarks.swebench import fixture
from tests.benchmarks.swebench.conftest import CALC_SPECS
from tests.harnesses.terminus2.t2_support import harbor_dir

KEY = "sk-VIEWER-do-not-show-5150"
HELLO = "printf 'Hello, world!\\n' > hello.txt\n"
CALC_FIX = "sed -i '0,/return a - b/s//return a + b/' calc/ops.py && cat calc/ops.py"
PATCH = "git diff -- calc/ops.py > patch.txt"
SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt"
SWE_COMMANDS = ["grep -n 'def add' -A 2 calc/ops.py", CALC_FIX, PATCH, SUBMIT]


def _common(results_dir: Path, **kw: Any) -> dict[str, Any]:
    return {"results_dir": str(results_dir), "environment": "local", "progress": "none", "task_concurrency": 4, **kw}


def demo_runs(results_dir: Path) -> dict[str, dict[str, Any]]:
    oracle = run_evaluation(benchmark="demo", harness="oracle", model="none", **_common(results_dir))
    nop = run_evaluation(benchmark="demo", harness="nop", model="none", **_common(results_dir))
    return {"oracle": oracle, "nop": nop}


def terminus_reply(*keys: str, done: bool = False) -> str:
    return json.dumps(
        {
            "analysis": "The directory is empty.",
            "plan": "Write the file.",
            "commands": [{"keystrokes": k, "duration": 0.3} for k in keys],
            "task_complete": done,
        }
    )


def terminus2_run(results_dir: Path) -> dict[str, Any]:
    replies = [terminus_reply(HELLO, "cat hello.txt\n"), terminus_reply(done=True), terminus_reply(done=True)]
    with ScriptedModelServer(replies=replies) as srv:
        return run_evaluation(
            benchmark="demo",
            harness="terminus2",
            model="scripted-t2",
            benchmark_params={"sample_ids": ["hello-file"]},
            model_base_url=srv.base_url,
            model_api_key=KEY,
            model_api_protocol="openai-chat",
            harness_params={"templates_dir": harbor_dir(), "record_terminal": False},
            execution_params={"artifacts": {"save": ["hello.txt", "missing-*.log"]}},
            run_name="terminus2-hello",
            **_common(results_dir),
        )


def tool(n: int, cmd: str) -> dict[str, Any]:
    """A scripted reply with one ``bash`` tool call (mini-swe-agent 2.x's default protocol)."""
    return {
        "text": "THOUGHT: the bug is in calc/ops.py.",
        "usage": {"input_tokens": 300, "output_tokens": 20},
        "tool_calls": [{"id": f"call_{n}", "name": "bash", "arguments": {"command": cmd}}],
    }


def swebench_run(results_dir: Path, data_root: Path) -> dict[str, Any]:
    row = fixture.make_calc(data_root)
    dataset = fixture.write_jsonl([row], data_root / "dataset" / "calc.jsonl")
    replies = [tool(i, c) for i, c in enumerate(SWE_COMMANDS, start=1)]
    with ScriptedModelServer(replies=replies) as srv:
        return run_evaluation(
            benchmark="swebench",
            harness="mini_swe_agent",
            model="scripted-msa",
            benchmark_params={
                "dataset_path": str(dataset),
                "agent_env": {},
                "allow_download": False,
                "grade_in": "agent",
                "repo_specs": CALC_SPECS,
            },  # local: no instance image
            execution_params={"artifacts": {"prepare": [{"src": str(data_root / "calc"), "dst": "/testbed"}]}},
            model_base_url=srv.base_url,
            model_api_key=KEY,
            model_api_protocol="openai-chat",
            run_name="swebench-calc",
            data_dir=str(data_root / "cache"),
            **_common(results_dir),
        )


def probe_run(results_dir: Path) -> dict[str, Any]:
    """Every task's first attempt fails with a (retryable) SandboxError and is retried; ``hello-file`` fails
    both times, so the run ends with one infra error, tracebacks in error.txt and two attempts per task. The
    post-run analysis writes analysis.json / analysis.md."""
    import os

    old = os.environ.get("PROBE_FAIL_TASKS")
    os.environ["PROBE_FAIL_TASKS"] = "hello-file"
    try:
        return run_evaluation(
            benchmark="demo",
            harness="oracle",
            model="none",
            overrides=["harness._target_=tests.helpers.ProbeHarness"],
            harness_params={"fail_times": 1, "error": "sandbox"},
            max_retries=1,
            enable_analysis=True,
            run_name="demo-flaky",
            **_common(results_dir),
        )
    finally:
        if old is None:
            os.environ.pop("PROBE_FAIL_TASKS", None)
        else:
            os.environ["PROBE_FAIL_TASKS"] = old
