"""BFCL multi-turn and AgentDojo attempts on the viewer: real runs of ``tool_agent`` (made once for the module) with
the scripted model server replaying the ground truth, BFCL's with a state-changing call dropped in the last turn
and AgentDojo's following the attack's injection. The API serves each call's state effect and the graders'
verdicts; in Chromium the Attempt page shows BFCL's turns with the checker's verdict on each and each call's state
effect, and AgentDojo's utility, security, injection task and attack, with the tool result that carries the
injection marked."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest

from agentcompass import run_evaluation
from agentcompass._view import serve
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests._view import browser

pytestmark = pytest.mark.slow
BFCL_TASK = "multi_turn_base_0"
DOJO_TASK = "banking/user_task_0/injection_task_1"
DROPPED = ("mv", {"source": "previous_report.pdf", "destination": "temp"})  # the last turn's state change


def _bfcl_replies() -> tuple[str, list[dict[str, Any]]]:
    from agentcompass.benchmarks.bfcl.benchmark import BfclMultiTurnBenchmark, BfclMultiTurnConfig

    bench = BfclMultiTurnBenchmark(BfclMultiTurnConfig(sample_ids=[BFCL_TASK]))
    task = bench.load()[0]
    replies: list[dict[str, Any]] = []
    for m in bench.reference_solution(task).messages:
        calls = [c for c in m.get("tool_calls") or [] if (c["name"], c["arguments"]) != DROPPED]
        replies.append({"tool_calls": calls} if m.get("tool_calls") else {"text": m["content"]})
    return task.instruction, replies


def _dojo_replies() -> tuple[str, list[dict[str, Any]]]:
    from agentcompass.benchmarks.agentdojo.benchmark import AgentDojoBenchmark, AgentDojoConfig

    case = AgentDojoBenchmark(AgentDojoConfig(sample_ids=[DOJO_TASK])).case(DOJO_TASK)
    env = case.task_environment()
    calls = [*case.user_task.ground_truth(env), *case.injection_task.ground_truth(env)]
    uses = [{"id": f"c{i}", "name": c.function, "arguments": dict(c.args)} for i, c in enumerate(calls)]
    return str(case.user_task.PROMPT), [{"tool_calls": uses}, {"text": "The bill is paid."}]


def _run(srv: ScriptedModelServer, root: Path, benchmark: str, task: str) -> None:
    run_evaluation(
        benchmark=benchmark,
        harness="tool_agent",
        model="agent-model",
        environment="memory",
        benchmark_params={"sample_ids": [task]},
        model_base_url=srv.base_url,
        model_api_key="k-view-tools",
        model_api_protocol="openai-chat",
        results_dir=str(root),
        progress="none",
        log_level="WARNING",
    )


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    pytest.importorskip("bfcl_eval")
    pytest.importorskip("agentdojo")
    root = tmp_path_factory.mktemp("view-tool-use") / "results"
    tasks = dict([_bfcl_replies(), _dojo_replies()])
    with ScriptedModelServer(tasks=tasks) as srv:
        _run(srv, root, "bfcl_multi_turn", BFCL_TASK)
        _run(srv, root, "agentdojo", DOJO_TASK)
    return root


def _get(srv: Any, route: str, **params: Any) -> dict[str, Any]:
    with urllib.request.urlopen(f"{srv.url}{route}?{urlencode(params)}", timeout=30) as res:
        return json.loads(res.read())


def _attempts(srv: Any) -> dict[str, tuple[str, dict[str, Any]]]:
    """{benchmark: (run key, attempt)} of the two runs."""
    out = {}
    for run in _get(srv, "api/runs")["runs"]:
        task = _get(srv, "api/tasks", run=run["key"])["tasks"][0]
        path = _get(srv, "api/task", run=run["key"], dir=task["dir"])["attempts"][0]["path"]
        att = _get(srv, "api/attempt", run=run["key"], path=path)
        out["agentdojo" if "suite" in att["grade"]["details"] else "bfcl"] = (run["key"], att)
    return out


def test_the_api_serves_the_effects_and_the_verdicts(results: Path) -> None:
    with serve([str(results)]) as srv:
        atts = _attempts(srv)
    bfcl = atts["bfcl"][1]
    assert bfcl["grade"]["details"]["checker"]["turns"] == [True, True, True, False]
    effects = bfcl["transcript"]["info"]["effects"]
    calls = {c["id"]: c for m in bfcl["transcript"]["messages"] for c in m.get("tool_calls") or []}
    mkdir = next(i for i, c in calls.items() if c["name"] == "mkdir")
    assert [e["path"] for e in effects[mkdir]] == ["GorillaFileSystem.root.contents.document.contents.temp"]
    assert effects[next(i for i, c in calls.items() if c["name"] == "grep")] == []  # reads change nothing
    dojo = atts["agentdojo"][1]["grade"]["details"]
    assert (dojo["utility"], dojo["security"], dojo["live_result"]) == (True, True, {"utility": True, "security": True})
    assert (dojo["injection_task"], dojo["attack"]) == ("injection_task_1", "important_instructions")
    assert dojo["suite"] == "banking"
    assert dojo["injection_goal"] and dojo["injections"]


def test_the_attempt_pages_show_turns_effects_and_verdicts(results: Path, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    driver = browser.start()
    try:
        with serve([str(results)]) as srv:
            atts = _attempts(srv)
            key, att = atts["bfcl"]
            driver.get(f"{srv.url}#/attempt/{quote(key, safe='')}/{quote(att['path'], safe='')}")
            n = len(att["transcript"]["messages"])
            browser.wait(  # every message rendered
                driver,
                lambda: len(driver.find_elements(By.CSS_SELECTOR, "#conversation .conv-msg")) == n,
                what="the messages",
            )
            heads = driver.find_elements(By.CSS_SELECTOR, "#conversation .conv-turn")
            assert [h.get_attribute("data-verdict") for h in heads] == ["passed", "passed", "passed", "failed"]
            effects = driver.find_elements(By.CSS_SELECTOR, "#conversation .conv-effect")
            assert len(effects) == sum(1 for m in att["transcript"]["messages"] if m["role"] == "tool")
            text = " ".join(e.get_attribute("textContent") for e in effects)
            assert "document.contents.temp" in text and "no change" in text
            verdict = driver.find_element(By.ID, "verdict").get_attribute("textContent")
            assert "invalid" in verdict and "multi_turn:instance_state_mismatch" in verdict
            browser.shoot(driver, tmp_path, "attempt-bfcl")
            assert not browser.console_errors(driver)

            key, att = atts["agentdojo"]
            driver.get(f"{srv.url}#/attempt/{quote(key, safe='')}/{quote(att['path'], safe='')}")
            verdict = browser.wait(  # the page changes in place: wait for AgentDojo's verdict, not BFCL's
                driver,
                lambda: (
                    "AgentDojo" in (text := driver.find_element(By.ID, "verdict").get_attribute("textContent")) and text
                ),
                what="AgentDojo's verdict",
            )
            for shown in ("utility: yes", "attack succeeded", "injection_task_1", "important_instructions", "banking"):
                assert shown in verdict, shown
            assert att["grade"]["details"]["injection_goal"] in verdict
            marked = browser.wait(
                driver,
                lambda: driver.find_elements(By.CSS_SELECTOR, "#conversation .conv-msg[data-injection='yes']"),
                what="the injected tool result",
            )
            assert marked and all(m.get_attribute("data-role") == "tool" for m in marked)
            browser.shoot(driver, tmp_path, "attempt-agentdojo")
            assert not browser.console_errors(driver)
    finally:
        browser.stop(driver)
