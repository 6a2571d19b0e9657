"""The scripted server itself: script sources, recording, faults, CLI entry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from agentcompass.errors import ConfigError
from agentcompass.testing.scripted_server import ScriptedModelServer


def post(url: str, body: dict, headers: dict | None = None) -> tuple[int, dict, dict]:
    req = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, dict(resp.headers), json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read())


def test_list_replies_then_exhausted_500_and_recording() -> None:
    with ScriptedModelServer(replies=["one", {"text": "two", "finish_reason": "length"}]) as srv:
        url = srv.base_url + "/chat/completions"
        assert srv.base_url.endswith("/v1")
        s1, _, b1 = post(
            url,
            {"model": "m", "messages": [{"role": "user", "content": "a b c"}]},
            {"Authorization": "Bearer sk-hidden"},
        )
        s2, _, b2 = post(url, {"model": "m", "messages": []})
        s3, h3, b3 = post(url, {"model": "m", "messages": []})
    assert (s1, b1["choices"][0]["message"]["content"], b1["usage"]["prompt_tokens"]) == (200, "one", 3)
    assert (s2, b2["choices"][0]["finish_reason"]) == (200, "length")
    assert s3 == 500 and "exhausted" in b3["error"]["message"] and h3.get("x-should-retry") == "false"
    assert srv.requests[0]["headers"]["authorization"] == "<redacted>"
    assert srv.requests[0]["body"]["messages"][0]["content"] == "a b c"
    assert [r["path"] for r in srv.requests] == ["/v1/chat/completions"] * 3


def test_callable_default_reply_and_unsupported_paths() -> None:
    seen = []

    def reply(request: dict) -> dict:
        seen.append(request["protocol"])
        return {"text": request["body"]["model"].upper(), "usage": {"input_tokens": 7, "output_tokens": 2}}

    with ScriptedModelServer(replies=reply, unsupported_paths=["/v1/responses"]) as srv:
        s1, _, b1 = post(srv.base_url + "/messages", {"model": "claude-x", "max_tokens": 5, "messages": []})
        s2, _, _ = post(srv.base_url + "/responses", {"model": "m", "input": []})
    assert s1 == 200 and b1["content"][0]["text"] == "CLAUDE-X" and b1["usage"]["input_tokens"] == 7
    assert s2 == 404 and seen == ["anthropic-messages"]
    with ScriptedModelServer(replies=[], default_reply="fallback") as srv:
        _, _, b = post(srv.base_url + "/responses", {"model": "m", "input": "hi"})
    assert b["output"][0]["content"][0]["text"] == "fallback"


def test_faults_do_not_consume_replies() -> None:
    faults = [{"kind": "429", "at": 1, "retry_after": 0.5}, {"kind": "503", "every": 3}]
    with ScriptedModelServer(replies=["a", "b", "c"], faults=faults) as srv:
        out = [post(srv.base_url + "/chat/completions", {"model": "m", "messages": []}) for _ in range(5)]
    statuses = [s for s, _, _ in out]
    assert statuses == [429, 200, 503, 200, 200]
    assert out[0][1]["Retry-After"] == "0.5"
    assert [b["choices"][0]["message"]["content"] for s, _, b in out if s == 200] == ["a", "b", "c"]
    assert srv.n_faults_injected == 2 and srv.faults_by_kind == {"429": 1, "503": 1}


def test_bad_fault_and_reply_specs_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="kind='boom'"):
        ScriptedModelServer(faults=[{"kind": "boom"}])
    with pytest.raises(ConfigError, match="unknown key"):
        ScriptedModelServer(replies=[{"txt": "typo"}])


def test_cli_entry_serves_a_yaml_script(tmp_path: Path) -> None:
    script = tmp_path / "replies.yaml"
    script.write_text("replies:\n  - hello from yaml\n  - {text: bye, finish_reason: length}\n")
    port_file = tmp_path / "port"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentcompass.testing.scripted_server",
            "--port",
            "0",
            "--script",
            str(script),
            "--port-file",
            str(port_file),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 20
        while not port_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        port = int(port_file.read_text())
        status, _, body = post(f"http://127.0.0.1:{port}/v1/chat/completions", {"model": "m", "messages": []})
        assert status == 200 and body["choices"][0]["message"]["content"] == "hello from yaml"
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 0
    assert f"AGENTCOMPASS_SCRIPTED_PORT={port}" in out and "served 1 requests" in out
