"""Whole runs against the scripted model server over real HTTP: errors stay in their attempt, limits hold."""

from __future__ import annotations

import json
import logging
import re

from agentcompass import run_evaluation
from agentcompass.testing.scripted_server import ScriptedModelServer

KEY = "sk-RUNLEVEL-secret-4242"


def answer(request):
    text = json.dumps(request.get("body", request))
    n = re.search(r"answer-(\d+)", text).group(1)
    if n == "2":
        return {"status": 401, "error": "invalid api key", "code": "invalid_api_key"}
    return {"text": f"answer-{n}", "delay_s": 0.05}


def test_model_retries_are_counted_in_results_and_progress(tmp_path):
    events = []
    faults = [{"at": 1, "kind": "429", "retry_after": 0.05}, {"at": 3, "kind": "500"}]
    with ScriptedModelServer(replies=answer, faults=faults) as srv:
        result = run_evaluation(
            benchmark="synthetic",
            harness="nop",
            environment="memory",
            model="echo-model",
            overrides=["harness._target_=tests.helpers.ModelEchoHarness", "model.backoff_base_s=0.01"],
            benchmark_params={"n_tasks": 2, "sample_ids": ["syn-0", "syn-1"]},
            model_base_url=srv.base_url,
            model_api_key=KEY,
            model_api_protocol="openai-chat",
            task_concurrency=1,
            results_dir=str(tmp_path),
            progress="none",
            on_progress=events.append,
        )
        injected = srv.n_faults_injected
    assert injected == 2 and result["metrics"]["n_errors"] == 0
    finished = [e for e in events if e.kind == "attempt_finished"]
    assert sum(e.model_retries for e in finished) == 2
    attempts = [json.loads(p.read_text()) for p in tmp_path.rglob("result.json")]
    assert sum(a["usage"]["retries"] for a in attempts) == 2


def test_a_401_ends_one_attempt_and_the_run_goes_on(tmp_path, caplog, capfd):
    caplog.set_level(logging.DEBUG, logger="agentcompass")
    with ScriptedModelServer(replies=answer) as srv:
        result = run_evaluation(
            benchmark="synthetic",
            harness="nop",
            environment="memory",
            model="echo-model",
            overrides=["harness._target_=tests.helpers.ModelEchoHarness", "model.provider=scripted-p"],
            benchmark_params={"n_tasks": 12},
            model_base_url=srv.base_url,
            model_api_key=KEY,
            model_api_protocol="openai-chat",
            model_params={"temperature": 0, "max_tokens": 16},
            task_concurrency=8,
            provider_limits={"scripted-p": 3},
            results_dir=str(tmp_path),
            progress="none",
        )
        max_conc = srv.max_concurrency
    m = result["metrics"]
    assert m["n_tasks"] == 12 and m["n_errors"] == 1 and m["errors_by_class"]["model"] == 1
    assert m["mean_reward"] == round(11 / 12, 6) and m["mean_reward_valid"] == 1.0
    bad = next(r for r in result["summary"]["tasks"] if r["task_id"] == "syn-2")
    assert "401" in bad["error"]["message"] and srv.base_url.split("/v1")[0] in bad["error"]["message"]
    assert max_conc == 3  # provider_limits caps concurrent calls
    assert m["tokens"]["input"] > 0 and m["tokens"]["output"] > 0
    text = "\n".join(p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file())
    out, err = capfd.readouterr()
    assert KEY not in text + out + err + caplog.text
