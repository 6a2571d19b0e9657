"""``--replay`` of a real agent program behind the model gateway (Codex CLI, local environment). Codex puts fresh
ids into every request (``client_metadata``, its input items), so a recorded run of it does not replay: the
agent gets the mismatch as an error in its own API, and the attempt ends with the ReplayMismatchError naming
the field, without a call to the endpoint (which is down)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcompass.errors import EvaluationFailedError
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.harnesses._installed import agent_support as support


@pytest.mark.slow
def test_a_recorded_codex_run_does_not_replay_and_says_which_field_differs(tmp_path: Path) -> None:
    with ScriptedModelServer(support.script("codex", root=tmp_path / "ws")) as srv:
        recorded = support.run("codex", "local", srv, tmp_path, ["hello-file"], run_id="rec")
    n_requests = len(srv.requests)
    assert recorded["metrics"]["mean_reward"] == 1.0 and n_requests >= 1
    with pytest.raises(EvaluationFailedError):
        support.run("codex", "local", srv, tmp_path, ["hello-file"], run_id="rep", replay=recorded["paths"]["run_dir"])
    assert len(srv.requests) == n_requests
    rep = next((tmp_path / "results").glob("*/rep/tasks/hello-file/sample-1/attempt-1"))
    error = json.loads((rep / "result.json").read_text())["error"]
    assert error.startswith("ReplayMismatchError: --replay ") and "gateway request 1 matches no recorded call" in error
    assert "at body.client_metadata." in error
    (line,) = [json.loads(t) for t in (rep / "model_calls.jsonl").read_text().splitlines()]
    assert (line["cache"], line["status"], line["http_status"]) == ("replay", "error", None)
