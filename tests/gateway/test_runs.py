"""Whole runs: an agent that calls the model API itself goes through the request's gateway; every harness's calls
land in model_calls.jsonl and in the attempt's usage; nothing listens after the run."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path
from urllib.parse import urlsplit

from agentcompass import run_evaluation
from agentcompass.testing.scripted_server import ScriptedModelServer

KEY = "sk-GATEWAY-run-secret-777"


def answer(request):
    n = re.search(r"answer-(\d+)", json.dumps(request["body"])).group(1)
    return {"text": f"answer-{n}", "usage": {"input_tokens": 10 + int(n), "output_tokens": 3}}


def _run(tmp_path: Path, harness: str, srv: ScriptedModelServer, n: int = 3, **kw):
    return run_evaluation(
        benchmark="synthetic",
        harness="nop",
        environment="local",
        model="gw-model",
        overrides=[f"harness._target_=tests.helpers.{harness}", "model.backoff_base_s=0.01"],
        benchmark_params={"n_tasks": n},
        model_base_url=srv.base_url,
        model_api_key=KEY,
        model_api_protocol="openai-chat",
        environment_params={"root_dir": str(tmp_path / "ws")},
        results_dir=str(tmp_path / "results"),
        progress="none",
        **kw,
    )


def _calls(tmp_path: Path) -> dict[str, list[dict]]:
    out = {}
    for path in (tmp_path / "results").rglob("model_calls.jsonl"):
        parts = path.relative_to(tmp_path / "results").parts
        out[parts[parts.index("tasks") + 1]] = [json.loads(line) for line in path.read_text().splitlines()]
    return out


def test_an_agent_calling_the_api_itself_is_served_counted_and_recorded(tmp_path: Path) -> None:
    with ScriptedModelServer(replies=answer) as srv:
        result = _run(tmp_path, "GatewayEchoHarness", srv, task_concurrency=3)
    assert result["metrics"]["mean_reward"] == 1.0 and result["metrics"]["n_errors"] == 0
    assert {r["body"]["model"] for r in srv.requests} == {"gw-model"}  # the agent's model name was replaced
    calls = _calls(tmp_path)
    assert sorted(calls) == ["syn-0", "syn-1", "syn-2"]
    for task, lines in calls.items():
        (line,) = lines
        n = int(task.split("-")[1])
        assert line["source"] == "gateway" and line["agent_protocol"] == "openai-chat"
        assert line["stream"] == {"agent": True, "upstream": True}
        assert line["usage"]["input"] == 10 + n  # each attempt is charged its own call (concurrent attempts)
    for row in result["summary"]["tasks"] if "tasks" in result["summary"] else []:
        assert row["tokens"]["input"] == 10 + int(row["task_id"].split("-")[1])
    attempts = [json.loads(p.read_text()) for p in (tmp_path / "results").rglob("result.json")]
    assert sorted(a["usage"]["input"] for a in attempts) == [10, 11, 12]
    assert result["metrics"]["tokens"]["input"] == 33
    base = json.loads(next((tmp_path / "results").rglob("result.json")).read_text())["agent"]["info"]["base"]
    url = urlsplit(base)
    with socket.socket() as s:  # the gateway closed with the request
        assert s.connect_ex((url.hostname, url.port)) != 0
    text = "".join(p.read_text(errors="replace") for p in (tmp_path / "results").rglob("*") if p.is_file())
    assert KEY not in text and "acgw-" not in text


def test_a_harness_calling_complete_is_recorded_too(tmp_path: Path) -> None:
    with ScriptedModelServer(replies=answer) as srv:
        result = _run(tmp_path, "ModelEchoHarness", srv, n=2)
    assert result["metrics"]["mean_reward"] == 1.0
    calls = _calls(tmp_path)
    assert sorted(calls) == ["syn-0", "syn-1"]
    line = calls["syn-1"][0]
    assert line["source"] == "client" and line["seq"] == 1 and line["status"] == "ok"
    assert line["request"]["messages"][1]["content"] == "Submit the text answer-1."
    assert line["response"]["text"] == "answer-1" and line["usage"]["input"] == 11
    assert line["response"]["raw"]["choices"][0]["message"]["content"] == "answer-1"
