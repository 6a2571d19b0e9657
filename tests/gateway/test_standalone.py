"""``agentcompass gateway``: a real process serving the official SDKs' calls (translated), recording them, and
stopping cleanly on SIGTERM and Ctrl-C; bad input is one line and exit code 2 with nothing written."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from agentcompass.testing.scripted_server import ScriptedModelServer

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-standalone-secret-24680"


def _start(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "agentcompass", "gateway", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_it_serves_any_client_records_and_stops_cleanly(stop: signal.Signals, tmp_path: Path) -> None:
    import anthropic
    import openai

    record = tmp_path / "calls"
    with ScriptedModelServer(["first answer", "second answer"]) as srv:
        proc = _start(
            "--model", "std-model", "--model-base-url", srv.base_url, "--model-api-protocol", "openai-chat",
            "--model-api-key", KEY, "--record-dir", str(record),
        )  # fmt: skip
        try:
            base, token = proc.stdout.readline().strip(), proc.stdout.readline().strip()
            assert base.startswith("http://127.0.0.1:") and token.startswith("acgw-")
            msg = anthropic.Anthropic(base_url=base, api_key=token, max_retries=0).messages.create(
                model="claude-anything", max_tokens=32, messages=[{"role": "user", "content": "hello"}]
            )
            resp = openai.OpenAI(base_url=base + "/v1", api_key=token, max_retries=0).responses.create(
                model="codex-anything", input="again"
            )
            assert msg.content[0].text == "first answer" and resp.output_text == "second answer"
            with pytest.raises(openai.AuthenticationError):
                openai.OpenAI(base_url=base + "/v1", api_key="acgw-wrong", max_retries=0).responses.create(
                    model="m", input="x"
                )
            assert {r["body"]["model"] for r in srv.requests} == {"std-model"}
        finally:
            proc.send_signal(stop)
            out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "stopped; 2 calls served" in err and "Traceback" not in err
    url = urlsplit(base)
    with socket.socket() as s:
        assert s.connect_ex((url.hostname, url.port)) != 0  # nothing listening
    lines = [json.loads(x) for x in (record / "model_calls.jsonl").read_text().splitlines()]
    assert [(x["agent_protocol"], x["upstream_protocol"], x["status"]) for x in lines] == [
        ("anthropic-messages", "openai-chat", "ok"),
        ("openai-responses", "openai-chat", "ok"),
    ]
    text = (record / "model_calls.jsonl").read_text() + out + err
    assert KEY not in text and token not in (record / "model_calls.jsonl").read_text()


@pytest.mark.parametrize(
    "args,named",
    [
        (["--model", "m", "--model-api-protocol", "bogus"], "bogus"),
        (["--model", "m", "--port", "70000"], "--port 70000"),
        (["--model", "m", "--record-dir", "FILE"], "is a file"),
        (["--model-base-url", "http://x"], "--model"),
    ],
    ids=["protocol", "port", "record-dir", "no-model"],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], named: str, tmp_path: Path) -> None:
    file = tmp_path / "a-file"
    file.write_text("x")
    before = sorted(tmp_path.rglob("*"))
    proc = _start(*[str(file) if a == "FILE" else a for a in args])
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, (out, err)
    assert named in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert out == "" and sorted(tmp_path.rglob("*")) == before  # nothing printed, nothing written
