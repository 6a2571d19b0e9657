"""The agents added beside the first four (pi, Cline, Kilo Code) in docker: each solves the demo's hello-file task
with its own file tool through the gateway, driven by the scripted server on an OpenAI Chat endpoint; usage is the
gateway's, the agent's own log and trajectory are kept, and the planted key is in no file of the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.environments.docker_support import remove_session_containers, require_engine
from tests.harnesses._installed import agent_support as support

pytestmark = [pytest.mark.docker, pytest.mark.slow]
AGENTS = ["pi", "cline", "kilo"]
# the name each agent's own file-writing tool has in the requests it sends
WRITE_TOOL = {"pi": "write", "cline": "editor", "kilo": "write"}


@pytest.fixture(autouse=True)
def _engine():
    require_engine()
    yield
    remove_session_containers()


@pytest.mark.parametrize("agent", AGENTS)
def test_agent_solves_hello_file_in_docker(agent: str, tmp_path: Path) -> None:
    with ScriptedModelServer(support.script(agent)) as srv:
        result = support.run(agent, "docker", srv, tmp_path, ["hello-file"], environment_params={"memory": "3G"})
    rows = support.attempts(tmp_path)
    assert result["metrics"]["n_errors"] == 0, {k: v.get("error") for k, v in rows.items()}
    assert {k: v["reward"] for k, v in rows.items()} == {"hello-file": 1.0}
    assert {r["protocol"] for r in srv.requests if r.get("protocol")} == {"openai-chat"}
    row = rows["hello-file"]
    calls = support.gateway_calls(row["_dir"])
    assert calls and all(c["status"] == "ok" for c in calls), [(c["status"], c["error"]) for c in calls]
    assert row["usage"]["input"] == len(calls) * support.USAGE["input_tokens"], row["usage"]
    offered = {n for r in srv.requests for n, _ in support._tool_names(r["body"].get("tools"))}
    assert WRITE_TOOL[agent] in offered, sorted(offered)  # the agent's own tool reached the server
    info = row["agent"]["info"]
    assert info["exit_code"] == 0 and (Path(row["_dir"]) / "agent" / info["native_log"].rsplit("/", 1)[-1]).is_file()
    trajectory = json.loads((Path(row["_dir"]) / "trajectory.json").read_text())
    called = [c["function_name"] for s in trajectory["steps"] for c in s.get("tool_calls") or []]
    assert called[0] == WRITE_TOOL[agent], trajectory["steps"]
    run_dir = Path(result["paths"]["run_dir"])
    for path in run_dir.rglob("*"):
        if path.is_file():
            assert support.KEY not in path.read_text(errors="replace"), path
