"""No credential on disk: a run whose model params carry ``api_key`` and credential headers (``extra_headers``:
Authorization, X-Auth-Key, api-key, Cookie) leaves none of the five values in any file of the run directory, the
cache directory, the exports or the captured output, while the endpoint (the scripted server) receives them all.

One attempt succeeds (its reply is cached); the other fails on a 400 whose message echoes three of the values
(a proxy that quotes the request back), so the error paths (result.json, run.log, the console) are covered too.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

from agentcompass import run_evaluation
from agentcompass.testing.scripted_server import ScriptedModelServer

ROOT = Path(__file__).resolve().parents[2]
OVERRIDES = ["harness._target_=tests.helpers.ModelEchoHarness", "model.backoff_base_s=0.01", "model.cache=read_write"]


def _values() -> dict[str, str]:
    return {name: secrets.token_hex(16) for name in ("api_key", "authorization", "x-auth-key", "api-key", "cookie")}


def _params(v: dict[str, str]) -> dict:
    headers = {
        "Authorization": f"Bearer {v['authorization']}",
        "X-Auth-Key": v["x-auth-key"],
        "api-key": v["api-key"],
        "Cookie": f"session={v['cookie']}",
    }
    return {"api_key": v["api_key"], "extra_headers": headers}


def _answer(request: dict) -> dict:
    n = re.search(r"answer-(\d+)", json.dumps(request["body"]["messages"])).group(1)
    if n == "1":  # an endpoint (or a proxy) that quotes the request's credentials back in its error
        quoted = f"{request['body'].get('api_key')} {request['headers'].get('x-auth-key')}"
        return {"status": 400, "error": f"rejected {quoted} {request['headers'].get('cookie')}"}
    return {"text": f"answer-{n}"}


def _texts(root: Path) -> list[tuple[Path, str]]:
    """Every file under ``root`` as text, and every entry of a response-cache database decompressed."""
    out = []
    for path in root.rglob("*"):
        if not path.is_file():
            continue
        out.append((path, path.read_bytes().decode("utf-8", "replace")))
        if path.name.endswith(".sqlite3"):
            with sqlite3.connect(path) as db:
                for key, body in db.execute("SELECT key, body FROM responses"):
                    out.append((path, key + zlib.decompress(body).decode("utf-8", "replace")))
    return out


def _leaks(v: dict[str, str], *roots: Path, output: str = "") -> list[str]:
    found = [f"{name} in {path}" for path, text in _texts_of(roots) for name, value in v.items() if value in text]
    return found + [f"{name} in the output" for name, value in v.items() if value in output]


def _texts_of(roots: tuple[Path, ...]) -> list[tuple[Path, str]]:
    return [item for root in roots if root.exists() for item in _texts(root)]


def _received(srv: ScriptedModelServer, v: dict[str, str]) -> None:
    """The endpoint got every value on every request."""
    assert srv.raw_headers and len(srv.raw_headers) == len(srv.requests)
    for request, head in zip(srv.requests, srv.raw_headers, strict=True):
        assert request["body"]["api_key"] == v["api_key"]
        assert head["authorization"] == f"Bearer {v['authorization']}"
        assert head["x-auth-key"] == v["x-auth-key"] and head["api-key"] == v["api-key"]
        assert head["cookie"] == f"session={v['cookie']}"


def _sdk_run(tmp_path: Path, srv: ScriptedModelServer, v: dict[str, str], name: str) -> dict:
    return run_evaluation(
        benchmark="synthetic",
        harness="nop",
        environment="local",
        model="cred-model",
        overrides=OVERRIDES,
        benchmark_params={"n_tasks": 2},
        model_base_url=srv.base_url,
        model_api_protocol="openai-chat",
        model_params=_params(v),
        environment_params={"root_dir": str(tmp_path / "ws")},
        results_dir=str(tmp_path / name),
        data_dir=str(tmp_path / "data"),
        progress="plain",
        log_level="DEBUG",
        max_retries=0,
    )


def _calls(run_dir: Path) -> dict[str, dict]:
    out = {}
    for path in run_dir.rglob("model_calls.jsonl"):
        line = json.loads(path.read_text().splitlines()[0])
        out[path.relative_to(run_dir).parts[1]] = line
    return out


def test_sdk_run_writes_no_credential_and_the_endpoint_gets_them_all(tmp_path: Path, capfd) -> None:
    from agentcompass._sdk.maintenance import export
    from agentcompass._sdk.viewing import write_report

    first, second = _values(), _values()
    with ScriptedModelServer(replies=_answer, keep_headers=True) as srv:
        result = _sdk_run(tmp_path, srv, first, "r1")
        _received(srv, first)
        assert len(srv.requests) == 2
        del srv.requests[:], srv.raw_headers[:]
        again = _sdk_run(tmp_path, srv, second, "r2")  # other credentials, the same endpoint and cache
        _received(srv, second)
        assert len(srv.requests) == 1  # syn-0 came from the cache (an error is not cached)
    assert result["metrics"]["n_tasks"] == 2
    run_dir = Path(result["paths"]["run_dir"])
    export("harbor", run_dir, tmp_path / "harbor")
    write_report(run_dir, tmp_path / "report.html")
    calls = _calls(run_dir)
    assert calls["syn-0"]["status"] == "ok" and calls["syn-1"]["status"] == "error"
    assert calls["syn-0"]["request"]["params"]["extra_headers"]["Cookie"] == "<redacted>"
    assert "rejected <redacted> <redacted> <redacted> (" in calls["syn-1"]["error"]["message"]
    # the key holds no credential but still finds the answer: the same request under other keys is a hit
    hit = _calls(Path(again["paths"]["run_dir"]))["syn-0"]
    assert hit["cache"] == "hit" and hit["key"] == calls["syn-0"]["key"]
    out = capfd.readouterr()
    roots = (tmp_path / "r1", tmp_path / "r2", tmp_path / "data", tmp_path / "harbor", tmp_path / "report.html")
    assert _leaks({**first, **{k + "'": x for k, x in second.items()}}, *roots, output=out.out + out.err) == []
    assert (tmp_path / "report.html").stat().st_size > 0 and any((tmp_path / "harbor").rglob("result.json"))


def test_cli_run_writes_no_credential_and_the_endpoint_gets_them_all(tmp_path: Path) -> None:
    v = _values()
    with ScriptedModelServer(replies=_answer, keep_headers=True) as srv:
        argv = [sys.executable, "-m", "agentcompass", "run", "synthetic", "nop", "cred-model", *OVERRIDES]
        argv += ["--env", "local", "--benchmark-params", '{"n_tasks": 2}', "--model-base-url", srv.base_url]
        argv += ["--model-api-protocol", "openai-chat", "--model-params", json.dumps(_params(v))]
        argv += ["--env-params", json.dumps({"root_dir": str(tmp_path / "ws")}), "--max-retries", "0"]
        argv += ["--results-dir", str(tmp_path / "r"), "--data-dir", str(tmp_path / "data"), "--progress", "plain"]
        argv += ["--log-level", "DEBUG", "--file-log-level", "DEBUG"]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT, env=env, check=False)
        _received(srv, v)
    assert len(srv.requests) == 2, proc.stderr[-2000:]
    assert any((tmp_path / "r").rglob("model_calls.jsonl")) and any((tmp_path / "r").rglob("run.log"))
    assert _leaks(v, tmp_path / "r", tmp_path / "data", output=proc.stdout + proc.stderr) == []
