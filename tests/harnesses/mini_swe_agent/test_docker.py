"""mini_swe_agent in Docker on the SWE-bench-style ``calc`` instance (no network): an attempt as the
orchestrator runs it (open from the benchmark's EnvSpec, setup, harness, grade, close), with scripted replies.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from agentcompass.harnesses.mini_swe_agent import MiniSweAgentConfig, MiniSweAgentHarness
from agentcompass.interfaces import AttemptContext, ComponentContext
from agentcompass.testing.replay import model_client
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.benchmarks.swebench import fixture
from tests.benchmarks.swebench.conftest import make_bench
from tests.environments.docker_support import TEST_LABELS, require_engine
from tests.harnesses.mini_swe_agent.conftest import require_reference
from tests.harnesses.mini_swe_agent.scenarios import block, text, tool

pytestmark = [pytest.mark.docker, pytest.mark.slow]
FIX = "sed -i '0,/return a - b/s//return a + b/' calc/ops.py"


@pytest.fixture(scope="module")
def calc_bench(tmp_path_factory):
    require_reference()
    require_engine()
    root = tmp_path_factory.mktemp("msa-calc")
    row = fixture.make_calc(root)
    dataset = fixture.write_jsonl([row], root / "dataset" / "calc.jsonl")
    tag = fixture.build_image(root / "calc", f"{fixture.IMAGE_REPO}:msa-{uuid.uuid4().hex[:10]}")
    try:
        yield make_bench(root / "data", dataset_path=str(dataset), image_template=tag, agent_env={})
    finally:
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True)


def attempt(tmp_path: Path, bench, replies: list[Any], **params) -> tuple[Any, Any, list[dict]]:
    from agentcompass.environments.docker import DockerProvider
    from agentcompass.environments.docker.config import DockerConfig

    task = bench.load()[0]
    harness = MiniSweAgentHarness(MiniSweAgentConfig(**params), ComponentContext(data_dir=tmp_path))

    async def go():
        provider = DockerProvider(DockerConfig(pull_policy="never"), ComponentContext(data_dir=tmp_path))
        spec = bench.env_spec(task)
        spec.labels.update({**TEST_LABELS, "agentcompass.run_id": "msa-docker"})
        env = await provider.open(spec)
        with ScriptedModelServer(replies=replies) as srv:
            client = model_client(srv.base_url, tmp_path, id="scripted-m")
            try:
                ctx = AttemptContext(task=task, attempt=1, attempt_dir=tmp_path / "attempt", benchmark=bench)
                (tmp_path / "attempt").mkdir(exist_ok=True)
                await bench.setup(task, env, ctx)
                agent = await harness.run(task, env, client, ctx)
                return await bench.grade(task, env, agent, ctx), agent, list(srv.requests)
            finally:
                await client.aclose()
                await env.close()
                await provider.aclose()

    return asyncio.run(go())


def test_tool_calls_inspect_fix_submit_resolve(tmp_path, calc_bench) -> None:
    replies = [
        tool(1, "cat calc/ops.py", "git status --short"),
        tool(2, FIX),
        tool(3, "python3 -c 'from calc.ops import add; print(add(2, 3))'"),
        tool(4, "git diff -- calc/ops.py > patch.txt"),
        tool(5, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt"),
    ]
    grade, agent, requests = attempt(tmp_path, calc_bench, replies)
    assert (agent.exit_status, agent.n_turns, len(requests)) == ("submitted", 5, 5)
    assert agent.submission.startswith("diff --git a/calc/ops.py") and "+    return a + b" in agent.submission
    assert (grade.reward, grade.resolved) == (1.0, True)
    traj = json.loads(Path(agent.trajectory_path).read_text())
    tools = [m["content"] for m in traj["messages"] if m["role"] == "tool"]
    assert "def add(a, b):" in tools[0] and tools[1].startswith("<returncode>0</returncode>")  # two calls, two results
    assert "\n5\n" in tools[3]
    assert traj["info"]["exit_status"] == "Submitted" and traj["info"]["config"]["environment"]["cwd"] == "/testbed"
    assert json.loads((tmp_path / "attempt" / "prediction.json").read_text())["model_name_or_path"] == "scripted-m"


def test_text_mode_format_error_timeout_long_output_and_step_limit_are_graded(tmp_path, calc_bench) -> None:
    replies = [
        text("no action"),
        block("sleep 30; echo never"),
        block("seq 1 3000"),
        block(FIX),
        block("echo not reached"),
    ]
    grade, agent, requests = attempt(
        tmp_path, calc_bench, replies, config="swebench_backticks", step_limit=4, command_timeout_s=2
    )
    assert (agent.exit_status, agent.limit_hit, agent.submission) == ("limits_exceeded", "step_limit", "")
    assert (len(requests), agent.n_format_errors) == (4, 1)
    assert (grade.reward, grade.resolved, grade.details["status"]) == (0.0, False, "empty_patch")
    traj = json.loads(Path(agent.trajectory_path).read_text())
    obs = [m["content"] for m in traj["messages"] if m["role"] == "user"][1:]
    assert obs[0].startswith("Format error:")
    assert obs[1].startswith(
        "<exception>An error occurred while executing the command: Command 'sleep 30; echo "
        "never' timed out after 2 seconds</exception>\n<returncode>-1</returncode>"
    )
    assert "<elided_chars>\n3893 characters elided" in obs[2]
    assert traj["info"]["exit_status"] == "LimitsExceeded" and traj["info"]["model_stats"]["api_calls"] == 4
