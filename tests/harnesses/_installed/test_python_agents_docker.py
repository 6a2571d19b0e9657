"""The Python agents (aider, OpenHands) in docker, in an image that has no Python of its own (the offline base image
with every Python package purged): their delivered interpreter and wheel set reach them through the read-only mount,
the demo's hello-file task is solved by the agent's own editing or tools against the scripted server on an OpenAI
Chat endpoint (through the gateway), usage is the gateway's, the planted key is in no file of the run."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.environments.docker_support import BASE_IMAGE, remove_session_containers, require_engine
from tests.harnesses._installed import agent_support as support

pytestmark = [pytest.mark.docker, pytest.mark.slow]
NO_PYTHON_IMAGE = "agentcompass-test/no-python:bookworm"
# every Python package of the base image purged (git, bash, coreutils stay); the build fails if a python is left
NO_PYTHON_DOCKERFILE = f"""FROM {BASE_IMAGE}
RUN apt-get purge -y -qq 'python3*' 'libpython3*' >/dev/null 2>&1; rm -rf /usr/lib/python3* /usr/local/lib/python3*; \\
    ! command -v python3 && ! command -v python && command -v git
"""


@pytest.fixture(autouse=True)
def _engine():
    require_engine()
    yield
    remove_session_containers()


@pytest.fixture(scope="module")
def no_python_image(tmp_path_factory: pytest.TempPathFactory) -> str:
    require_engine()
    ctx = tmp_path_factory.mktemp("no-python")
    (ctx / "Dockerfile").write_text(NO_PYTHON_DOCKERFILE)
    done = subprocess.run(
        ["docker", "build", "-q", "--network", "none", "-t", NO_PYTHON_IMAGE, str(ctx)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    probe = subprocess.run(
        ["docker", "run", "--rm", "--network", "none", NO_PYTHON_IMAGE, "sh", "-c", "ls /usr/bin /usr/local/bin"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.returncode == 0 and "python" not in probe.stdout, probe.stdout
    return NO_PYTHON_IMAGE


def _aider_reply(request: dict[str, Any]) -> dict[str, Any]:
    """aider's own edit format for a model it does not know (``whole``: the file's name, then its whole content
    fenced); its commit-message request gets a one-line message."""
    body = request["body"]
    text = json.dumps(body)
    if "commit message" in text.lower():
        return {"text": "Add hello.txt", "usage": support.USAGE}
    if any(m.get("role") == "assistant" and "Hello, world!" in str(m.get("content")) for m in body["messages"]):
        return {"text": "Done.", "usage": support.USAGE}
    return {"text": "hello.txt\n```\nHello, world!\n```\n", "usage": support.USAGE}


def _required(body: dict[str, Any], tool: str) -> list[str]:
    for spec in body.get("tools") or []:
        function = spec.get("function") or {}
        if function.get("name") == tool:
            return list((function.get("parameters") or {}).get("required") or [])
    raise AssertionError(
        f"the request offers no tool {tool!r}: {[t.get('function', {}).get('name') for t in body['tools']]}"
    )


def _openhands_reply(request: dict[str, Any]) -> dict[str, Any]:
    """OpenHands' own tools: ``file_editor`` creates the file, then ``finish`` (the SDK's fields every action
    requires, such as its security risk, filled in as its schema asks)."""
    body = request["body"]
    text = json.dumps(body)
    if not body.get("tools"):
        return {"text": "Done.", "usage": support.USAGE}
    if support.CALL_ID not in text:
        name, call_id = "file_editor", support.CALL_ID
        args: dict[str, Any] = {"command": "create", "path": "/app/hello.txt", "file_text": support.HELLO}
    else:
        name, call_id, args = "finish", "call_ac_2", {"message": "Created hello.txt."}
    for field in _required(body, name):
        args.setdefault(field, "LOW" if field == "security_risk" else "hello.txt")
    return {"text": "", "tool_calls": [{"id": call_id, "name": name, "arguments": args}], "usage": support.USAGE}


SCRIPTS = {"aider": _aider_reply, "openhands": _openhands_reply}


@pytest.mark.parametrize("agent", ["aider", "openhands"])
def test_python_agent_solves_hello_file_without_a_python_in_the_image(
    agent: str, no_python_image: str, tmp_path: Path
) -> None:
    with ScriptedModelServer(SCRIPTS[agent]) as srv:
        result = support.run(
            agent,
            "docker",
            srv,
            tmp_path,
            ["hello-file"],
            protocol="openai-chat",
            environment_params={"base_image": no_python_image},
        )
        served = [r for r in srv.requests if r.get("protocol")]
    rows = support.attempts(tmp_path)
    assert result["metrics"]["n_errors"] == 0, {k: v.get("error") for k, v in rows.items()}
    assert {k: v["reward"] for k, v in rows.items()} == {"hello-file": 1.0}
    assert served and {r["protocol"] for r in served} == {"openai-chat"}
    row = rows["hello-file"]
    calls = support.gateway_calls(row["_dir"])
    assert calls and all(c["status"] == "ok" for c in calls), [(c["status"], c["error"]) for c in calls]
    assert len(calls) == len(served)
    assert row["usage"]["input"] == len(calls) * support.USAGE["input_tokens"], row["usage"]
    info = row["agent"]["info"]
    assert info["exit_code"] == 0 and info["platform"]["libc"] == "glibc"
    assert (Path(row["_dir"]) / "agent" / info["native_log"].rsplit("/", 1)[-1]).is_file()
    trajectory = json.loads((Path(row["_dir"]) / "trajectory.json").read_text())
    assert trajectory["schema_version"].startswith("ATIF")
    assert any(step["source"] == "agent" for step in trajectory["steps"])
    if agent == "openhands":  # the runner's own ATIF: the file_editor call, its result
        assert any(support.CALL_ID in json.dumps(step.get("tool_calls")) for step in trajectory["steps"])
    run_dir = Path(result["paths"]["run_dir"])
    for path in run_dir.rglob("*"):
        if path.is_file():
            assert support.KEY not in path.read_text(errors="replace"), path
