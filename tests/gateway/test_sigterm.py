"""SIGTERM while an agent's streamed call is in the gateway: the run stops as usual and nothing listens after."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from urllib.parse import urlsplit

from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.run_support import start_cli, terminate, wait_for


def _listening(url: str) -> bool:
    parts = urlsplit(url)
    with socket.socket() as s:
        return s.connect_ex((parts.hostname, parts.port)) == 0


def test_sigterm_during_a_streamed_call_leaves_nothing_listening(tmp_path: Path, monkeypatch) -> None:
    marker = tmp_path / "gateway-urls"
    monkeypatch.setenv("AGENTCOMPASS_TEST_GATEWAY_FILE", str(marker))
    slow = {"text": " ".join(["word"] * 5), "event_delay_s": 30}  # the stream stalls after its first event
    with ScriptedModelServer(default_reply=slow) as srv:
        proc = start_cli(
            "run",
            "synthetic",
            "nop",
            "gw-model",
            "--env",
            "local",
            "--model-base-url",
            srv.base_url,
            "--model-api-key",
            "sk-sigterm-secret-0001",
            "--model-api-protocol",
            "openai-chat",
            "--results-dir",
            str(tmp_path / "out"),
            "--progress",
            "none",
            "--env-params",
            json.dumps({"root_dir": str(tmp_path / "ws")}),
            "--benchmark-params",
            json.dumps({"n_tasks": 2}),
            "harness._target_=tests.helpers.GatewayEchoHarness",
        )
        try:
            wait_for(lambda: srv.n_requests >= 2, 120, "two streamed calls in flight")
        except BaseException:
            proc.kill()
            raise
        urls = set(marker.read_text().split())
        assert urls and all(_listening(u) for u in urls)
        code, err = terminate(proc)
    assert code == 143, err
    assert not any(_listening(u) for u in urls)
