"""Gemini CLI in the local environment on endpoints of the other two translated APIs (Anthropic Messages, OpenAI
Responses; docker covers OpenAI Chat and the Gemini API itself): its own system prompt and tools reach the endpoint,
``hello-file`` is solved with its ``write_file`` tool, every call is ok and counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.harnesses._installed import agent_support as support
from tests.harnesses._installed import gemini_support


@pytest.mark.slow
@pytest.mark.parametrize("endpoint", ["anthropic-messages", "openai-responses"])
def test_gemini_cli_on_another_api_locally(endpoint: str, tmp_path: Path) -> None:
    with ScriptedModelServer(gemini_support.script(root=str(tmp_path / "ws"))) as srv:
        result = support.run("gemini_cli", "local", srv, tmp_path, ["hello-file"], protocol=endpoint)
    (row,) = support.attempts(tmp_path).values()
    assert result["metrics"]["n_errors"] == 0, row.get("error")
    assert row["reward"] == 1.0
    assert {r["protocol"] for r in srv.requests} == {endpoint}
    first = str(srv.requests[0]["body"])
    assert "Gemini CLI" in first and "write_file" in first and "run_shell_command" in first
    calls = support.gateway_calls(row["_dir"])
    assert [(c["agent_protocol"], c["upstream_protocol"], c["status"]) for c in calls] == [
        ("google-genai", endpoint, "ok")
    ] * len(srv.requests)
    assert row["usage"]["input"] == len(calls) * support.USAGE["input_tokens"]
