"""The Python agents in the local environment: the same delivered interpreter and wheel set, reached through the
workspace's link to the agent cache, solve hello-file in the workspace (the host's own Python is not used)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.harnesses._installed import agent_support as support
from tests.harnesses._installed.test_python_agents_docker import SCRIPTS

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("agent", ["aider", "openhands"])
def test_python_agent_solves_hello_file_locally(agent: str, tmp_path: Path) -> None:
    def reply(request: dict[str, Any]) -> dict[str, Any]:
        out = SCRIPTS[agent](request)
        for call in out.get("tool_calls", []):  # the workspace's workdir, as the agent states it
            if "path" in call["arguments"]:
                workdir = support._workdir(json.dumps(request["body"]), str(tmp_path / "ws"))
                call["arguments"]["path"] = f"{workdir}/hello.txt"
        return out

    with ScriptedModelServer(reply) as srv:
        result = support.run(agent, "local", srv, tmp_path, ["hello-file"], protocol="openai-chat")
    rows = support.attempts(tmp_path)
    assert result["metrics"]["n_errors"] == 0, {k: v.get("error") for k, v in rows.items()}
    assert {k: v["reward"] for k, v in rows.items()} == {"hello-file": 1.0}
    calls = support.gateway_calls(rows["hello-file"]["_dir"])
    assert calls and rows["hello-file"]["usage"]["input"] == len(calls) * support.USAGE["input_tokens"]
