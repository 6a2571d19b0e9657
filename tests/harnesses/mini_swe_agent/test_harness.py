"""mini_swe_agent on the local environment: cancellation and time limits with the package's synchronous loop
in a thread, other protocols, configuration errors, and the missing-package error."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agentcompass._config.registry import build
from agentcompass.errors import ConfigError
from agentcompass.harnesses.mini_swe_agent import MiniSweAgentConfig, MiniSweAgentHarness
from agentcompass.interfaces import ComponentContext, Task
from agentcompass.testing.replay import areplay, replay
from tests.harnesses.mini_swe_agent.conftest import require_reference
from tests.harnesses.mini_swe_agent.scenarios import SUBMIT, block, tool

REPO_ROOT = Path(__file__).resolve().parents[3]
TASK = Task(id="calc-1", instruction="Fix add.", workdir="/testbed")


@pytest.fixture(autouse=True)
def _package():
    require_reference()


def harness(tmp_path: Path, **params) -> MiniSweAgentHarness:
    return MiniSweAgentHarness(MiniSweAgentConfig(**params), ComponentContext(data_dir=tmp_path / "data"))


def _run_cancelled(tmp_path: Path, replies, after_s: float, **params):
    """Run the harness under an outer timeout (what the orchestrator's agent timeout does)."""
    h = harness(tmp_path, **params)
    task = Task(id=TASK.id, instruction=TASK.instruction, workdir="/testbed", agent_timeout_s=after_s)
    start = time.monotonic()
    out = asyncio.run(areplay(h, task, replies, tmp_path, before_run=lambda env: env.exec("mkdir -p /testbed")))
    return out, time.monotonic() - start


def test_agent_timeout_during_a_command_stops_the_thread_and_kills_the_command(tmp_path) -> None:
    marker = "msa-cancel-probe-4711"
    replies = [tool(1, f"sleep 60 && echo {marker}")]
    out, took = _run_cancelled(tmp_path, replies, 2.0, command_timeout_s=120)
    assert isinstance(out.error, TimeoutError) and took < 15
    traj = json.loads((out.attempt_dir / "calc-1.traj.json").read_text())
    assert traj["info"]["exit_status"] == "Cancelled" and traj["messages"][-1]["role"] == "exit"
    alive = subprocess.run(["pgrep", "-f", f"sleep 60 && echo {marker}"], capture_output=True, text=True)
    assert alive.stdout.strip() == ""
    deadline = time.monotonic() + 5
    while [t for t in threading.enumerate() if t.name.startswith("mini-swe-agent:")] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [t for t in threading.enumerate() if t.name.startswith("mini-swe-agent:")]


def test_agent_timeout_during_a_model_call_is_prompt(tmp_path) -> None:
    out, took = _run_cancelled(tmp_path, [{"text": "slow", "delay_s": 30}], 1.5)
    assert isinstance(out.error, TimeoutError) and took < 15
    assert len(out.requests) == 1


def test_wall_time_limit_ends_the_run_without_an_error(tmp_path) -> None:
    h = harness(tmp_path, wall_time_limit_s=1)
    out = replay(
        h, TASK, [tool(1, "sleep 1.5"), tool(2, "ls")], tmp_path, before_run=lambda env: env.exec("mkdir -p /testbed")
    )
    assert out.error is None
    assert (out.result.exit_status, out.result.limit_hit, out.result.n_turns) == ("limits_exceeded", "wall_time", 1)
    assert len(out.requests) == 1


@pytest.mark.parametrize("protocol", ["openai-responses", "anthropic-messages"])
def test_tool_calls_over_the_other_protocols(tmp_path, protocol) -> None:
    replies = [tool(1, "echo hello > f.txt && cat f.txt"), tool(2, SUBMIT.replace("cat patch.txt", "cat f.txt"))]
    out = replay(
        harness(tmp_path),
        TASK,
        replies,
        tmp_path,
        protocol=protocol,
        model={
            "id": "claude-x" if protocol.startswith("anthropic") else "m",
            "prices": {"input_per_mtok": 1.0, "output_per_mtok": 1.0},
        },
        before_run=lambda env: env.exec("mkdir -p /testbed"),
    )
    assert out.error is None and out.result.exit_status == "submitted" and out.result.submission == "hello\n"
    second = out.bodies[1]
    if protocol == "openai-responses":
        assert [i.get("type", "message") for i in second["input"]] == [
            "message",
            "message",
            "function_call",
            "function_call_output",
        ]
        assert second["input"][3]["output"].startswith("<returncode>0</returncode>")
    else:
        last = second["messages"][-1]
        assert last["role"] == "user" and last["content"][0]["type"] == "tool_result"
        assert second["messages"][-1]["content"][0].get("cache_control") == {"type": "ephemeral"}  # claude model
    assert out.result.usage.cost_usd > 0


def test_text_mode_is_the_default_of_swebench_backticks(tmp_path) -> None:
    out = replay(
        harness(tmp_path, config="swebench_backticks"),
        TASK,
        [block("echo hi"), block(SUBMIT.replace("cat patch.txt", "echo done"))],
        tmp_path,
        before_run=lambda env: env.exec("mkdir -p /testbed"),
    )
    assert out.result.exit_status == "submitted" and out.result.submission == "done\n"
    assert "tools" not in out.bodies[0] and out.result.info["mini_model_class"] == "litellm_textbased"


def test_a_user_yaml_and_overrides(tmp_path) -> None:
    cfg = tmp_path / "mine.yaml"
    cfg.write_text(
        "agent:\n  system_template: 'You are {{model_name}}.'\n  instance_template: 'Do: {{task}}'\n"
        "  step_limit: 1\nenvironment:\n  timeout: 5\nmodel:\n  model_kwargs: {temperature: 0.25}\n"
    )
    out = replay(
        harness(tmp_path, config=str(cfg), model_kwargs={"top_p": 0.5}),
        TASK,
        [tool(1, "ls")],
        tmp_path,
        model={"id": "my-model"},
        before_run=lambda env: env.exec("mkdir -p /testbed"),
    )
    body = out.bodies[0]
    assert body["messages"][:2] == [
        {"role": "system", "content": "You are my-model."},
        {"role": "user", "content": "Do: Fix add."},
    ]
    assert (body["temperature"], body["top_p"], len(out.bodies)) == (0.25, 0.5, 1)
    assert out.result.limit_hit == "step_limit"


@pytest.mark.parametrize(
    "params, message",
    [
        ({"config": "nope"}, "config='nope' is not a config shipped with mini-swe-agent 2.4.6; valid: "),
        ({"config": "/no/such.yaml"}, "config='/no/such.yaml': no such file"),
        ({"agent": {"step_limt": 3}}, "agent.step_limt is not a key of mini-swe-agent's agent section"),
        ({"agent": {"agent_class": "interactive"}}, "only mini-swe-agent's DefaultAgent runs unattended"),
        ({"model": {"model_class": "litellm_response"}}, "model.model_class='litellm_response'"),
        ({"model": {"model_name": "x"}}, "model.model_name is the request's model here"),
        ({"model_kwargs": {"api_base": "http://x"}}, "model.model_kwargs.api_base configures LiteLLM's connection"),
        ({"environment": {"image": "ubuntu"}}, "environment.image configures mini-swe-agent's own container"),
        ({"environment": {"timeout": "soon"}}, "environment.timeout"),
        ({"run": {"startup": "x"}}, "run.startup is not a key"),
    ],
)
def test_configuration_errors_name_the_key(tmp_path, params, message) -> None:
    with pytest.raises(ConfigError) as err:
        harness(tmp_path, **params)
    assert message in str(err.value)


def test_unknown_harness_param_is_a_config_error(tmp_path) -> None:
    cfg = {
        "_target_": "agentcompass.harnesses.mini_swe_agent.MiniSweAgentHarness",
        "id": "mini_swe_agent",
        "step_limits": 3,
    }
    with pytest.raises(ConfigError, match="step_limits"):
        build("harness", cfg, ComponentContext(data_dir=tmp_path))


def test_a_missing_package_names_the_extra(tmp_path) -> None:
    script = (
        "import sys; sys.modules['minisweagent'] = None\n"
        "from agentcompass.harnesses.mini_swe_agent import MiniSweAgentConfig, MiniSweAgentHarness\n"
        "from agentcompass.interfaces import ComponentContext\n"
        f"MiniSweAgentHarness(MiniSweAgentConfig(), ComponentContext(data_dir={str(tmp_path)!r}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert proc.returncode != 0
    assert "DependencyError" in proc.stderr and "pip install 'agentcompass[mini-swe-agent]'" in proc.stderr
    assert "--auto-install-dependencies" in proc.stderr


def test_importing_the_package_prints_nothing_and_stays_in_the_data_dir(tmp_path) -> None:
    script = (
        "from agentcompass.harnesses.mini_swe_agent import MiniSweAgentConfig, MiniSweAgentHarness\n"
        "from agentcompass.interfaces import ComponentContext\n"
        f"MiniSweAgentHarness(MiniSweAgentConfig(), ComponentContext(data_dir={str(tmp_path)!r}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MSWEA_")}
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "PYTHONPATH": str(REPO_ROOT), "HOME": str(tmp_path / "home")},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "" and "mini-swe-agent" not in proc.stderr
    assert (tmp_path / "mini-swe-agent").is_dir() and not (tmp_path / "home" / ".config").exists()
