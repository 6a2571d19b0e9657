"""Agreement with Harbor 0.26's adapters of the Python agents (``harbor/agents/installed/aider.py`` and
``openhands.py``), run in the harbor reference venv (scripts/ensure_reference.sh harbor) against a recording
environment: the agent's command line, the names of its environment variables and its settings equal ours for the
same model, endpoint and task; the differences are the ones docs/aider.md and docs/openhands.md give."""

from __future__ import annotations

import functools
import json
import os
import shlex
from types import SimpleNamespace
from typing import Any

import pytest

from agentcompass.harnesses._installed import gateway
from agentcompass.harnesses._installed.platform import Platform
from agentcompass.harnesses._installed.runner import Run
from agentcompass.interfaces import Task
from agentcompass.testing.reference import reference_python, run_reference

PLAT = Platform("linux", "x64", "glibc", (2, 36))
BASE = "http://172.17.0.1:4000"
INSTRUCTION = "Create hello.txt; it's quoted"
# runs one Harbor agent's run() against an environment that records every exec (command, env) and upload
HARBOR = """
import asyncio, json, os, sys, tempfile, importlib
from pathlib import Path
from types import SimpleNamespace
p = json.load(sys.stdin)
os.environ.update(p["process_env"])
module, _, name = p["agent"].partition(":")
cls = getattr(importlib.import_module(module), name)
from harbor.models.agent.context import AgentContext
calls = None
class Env:
    default_user = None
    async def exec(self, command, user=None, env=None, cwd=None, timeout_sec=None):
        calls.append({"command": command, "env": env or {}})
        return SimpleNamespace(return_code=0, stdout="", stderr="")
    async def upload_file(self, source_path, target_path):
        calls.append({"upload": str(target_path), "text": Path(source_path).read_text()})
out = []
for kwargs in p["cases"]:
    calls = []
    agent = cls(logs_dir=Path(tempfile.mkdtemp()), model_name=p["model"], base_url=p["base_url"], **kwargs)
    if p.get("configure"):
        asyncio.run(agent.configure(Env()))
    asyncio.run(agent.run(p["instruction"], Env(), AgentContext()))
    out.append(calls)
print(json.dumps(out))
"""
AIDER_CASES = [
    ({}, {}),
    ({"reasoning_effort": "high", "map_tokens": 1024}, {"reasoning_effort": "high", "map_tokens": 1024}),
]
OPENHANDS_CASES = [
    ({}, {}),
    (
        {"model_params": {"reasoning_effort": "high", "temperature": 0.5}, "max_turns": 7, "load_skills": False},
        {"reasoning_effort": "high", "temperature": 0.5, "max_iterations": 7, "load_skills": False},
    ),
]


def _harbor(agent: str, kwargs: dict[str, Any], cases: list[Any], configure: bool = False) -> list[dict[str, Any]]:
    """The calls Harbor's adapter ``agent`` makes with ``kwargs``: every case of ``cases`` is run by one reference
    process (the first test asks, the others read its answer)."""
    all_kwargs = [harbor for _ours, harbor in cases]
    answer = _harbor_cases(agent, json.dumps(all_kwargs), configure)
    return answer[all_kwargs.index(kwargs)]


@functools.lru_cache(maxsize=4)
def _harbor_cases(agent: str, cases: str, configure: bool) -> list[list[dict[str, Any]]]:
    if reference_python("harbor") is None:
        message = "the harbor reference venv is missing: run scripts/ensure_reference.sh harbor"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    payload = {
        "agent": agent,
        "model": "openai/m-1",
        "configure": configure,
        "base_url": BASE + "/v1",
        "instruction": INSTRUCTION,
        "cases": json.loads(cases),
        "process_env": {"OPENAI_API_KEY": "tok-1", "LLM_API_KEY": "tok-1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    }
    return run_reference("harbor", HARBOR, payload)


class _Env:
    def path(self, p: str) -> str:
        return p


def _run(harness: Any) -> Run:
    end = gateway.Endpoint(BASE, "tok-1", "m-1")
    run = Run(
        Task(id="t", instruction=INSTRUCTION),
        _Env(),
        SimpleNamespace(time_limit_s=600),
        PLAT,
        end,
        [],
        "/app",
        "/logs/agent",
    )  # type: ignore[arg-type]
    run.parts = harness.parts(PLAT)
    return run


def _core(command: str) -> str:
    """Harbor's agent command without its install-specific prologue and its own tee (our runner adds the tee)."""
    command = command.removeprefix("(set -o pipefail) 2>/dev/null && set -o pipefail; ")
    command = command.removeprefix(". $HOME/.local/bin/env; ")
    return command.rsplit(" 2>&1 | ", 1)[0].strip()


@pytest.mark.parametrize(("params", "harbor_kwargs"), AIDER_CASES)
def test_aider_command_env_and_settings_are_harbors(params: dict[str, Any], harbor_kwargs: dict[str, Any]) -> None:
    from agentcompass.harnesses.aider import AiderConfig, AiderHarness

    (call,) = _harbor("harbor.agents.installed.aider:Aider", harbor_kwargs, AIDER_CASES)
    harness = AiderHarness(AiderConfig(model_params=params), None)
    run = _run(harness)
    ours = harness.command(run).replace(
        f'PATH={shlex.quote(run.env.path(run.parts[1].env_dir()) + "/bin")}:"$PATH" ', ""
    )
    assert ours == _core(call["command"])
    env = harness.variables(run)
    assert set(call["env"]) <= set(env)
    assert set(env) - set(call["env"]) == {
        "AIDER_CHECK_UPDATE",
        "AIDER_SHOW_RELEASE_NOTES",
        "AIDER_ANALYTICS_DISABLE",
        "LITELLM_LOCAL_MODEL_COST_MAP",
    }
    assert {k: env[k] for k in call["env"] if k != "AIDER_API_KEY_SETTINGS"} == {
        k: v for k, v in call["env"].items() if k != "AIDER_API_KEY_SETTINGS"
    }
    assert json.loads(env["AIDER_API_KEY_SETTINGS"]) == json.loads(call["env"]["AIDER_API_KEY_SETTINGS"])


@pytest.mark.parametrize(("params", "harbor_kwargs"), OPENHANDS_CASES)
def test_openhands_command_env_and_files_are_harbors_sdk_adapter(
    params: dict[str, Any], harbor_kwargs: dict[str, Any], tmp_path: Any
) -> None:
    """Harbor's ``openhands-sdk`` adapter (our ``openhands``), for an OpenAI Chat Completions endpoint: the runner
    script and the instruction file, the command's arguments and every environment variable."""
    import asyncio

    from agentcompass.harnesses.openhands import OpenHandsConfig, OpenHandsHarness
    from agentcompass.interfaces import ComponentContext

    cases = [(ours, {"model_api_format": "openai_chat_completions", **theirs}) for ours, theirs in OPENHANDS_CASES]
    kwargs = {"model_api_format": "openai_chat_completions", **harbor_kwargs}
    calls = _harbor("harbor.agents.installed.openhands_sdk:OpenHandsSDK", kwargs, cases, configure=True)
    uploads = {c["upload"]: c["text"] for c in calls if "upload" in c}
    (command,) = [c for c in calls if "command" in c and "--instruction-file" in c["command"]]
    harness = OpenHandsHarness(OpenHandsConfig(**params), ComponentContext(data_dir=tmp_path))
    run = _run(harness)
    written: dict[str, str] = {}

    async def write_file(path: str, data: str) -> None:
        written[path] = data

    runner = run.parts[2].host_dir(tmp_path) / "openhands_sdk_runner.py"
    runner.parent.mkdir(parents=True)
    runner.write_text(uploads["/installed-agent/run_agent.py"])  # the delivered file is the wheel's (test below)
    run.env.write_file = write_file  # type: ignore[attr-defined]
    asyncio.run(harness.prepare(run))
    assert written == {k: v for k, v in uploads.items()}
    ours = shlex.split(harness.command(run))
    theirs = shlex.split(_core(command["command"]))
    assert ours[0].endswith("/bin/python") and theirs[0] == "/opt/openhands-sdk-venv/bin/python"
    assert ours[1:] == theirs[1:]
    env = harness.variables(run)
    assert set(env) - set(command["env"]) == {"LITELLM_LOCAL_MODEL_COST_MAP"}
    assert {k: v for k, v in env.items() if k in command["env"]} == command["env"]


def test_openhands_runner_is_harbors_file(tmp_path: Any) -> None:
    """The runner delivered is the one in the harbor 0.26.0 wheel on PyPI, byte for byte the reference's."""
    from agentcompass.harnesses._installed import delivery
    from agentcompass.harnesses.openhands import OpenHandsConfig, OpenHandsHarness
    from agentcompass.testing.reference import reference_dir
    from tests.harnesses._installed.agent_support import agent_cache

    if reference_python("harbor") is None:
        pytest.skip("the harbor reference venv is missing: run scripts/ensure_reference.sh harbor")
    part = OpenHandsHarness(OpenHandsConfig(), None).parts(PLAT)[2]
    record = delivery.ensure_sync(part, agent_cache(), auto_install=True, harness="openhands", platform="linux-x64")
    assert record["name"] == "harbor" and record["hash"].startswith("sha256:")
    (reference,) = (reference_dir() / "harbor").glob("lib/python3*/site-packages/harbor/agents/installed")
    ours = part.host_dir(agent_cache()) / "openhands_sdk_runner.py"
    assert ours.read_bytes() == (reference / "openhands_sdk_runner.py").read_bytes()
