"""A tool-use attempt on the viewer: a real τ²-bench airline run of ``tool_agent`` with a scripted agent and a
scripted user (the ``user`` model role), both on the scripted model server. The API serves the transcript, the grade's
reward info and the usage per role; in Chromium the Attempt page shows the conversation (the user's, the agent's
and the tool's turns), the grade's components and the roles' usage, and the run page the roles' usage."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest

from agentcompass import run_evaluation
from agentcompass._view import serve
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests._view import browser

pytestmark = pytest.mark.slow
USAGE = {"input_tokens": 30, "output_tokens": 5}


def _reply(request):
    body = request["body"]
    turns = sum(1 for m in body["messages"] if m["role"] == "assistant")
    if body["model"] == "user-model":
        text = "My user id is raj_sanchez_7340." if turns == 0 else "Thanks. ###STOP###"
        return {"text": text, "usage": USAGE}
    if not any(m["role"] == "tool" for m in body["messages"]):
        call = {"id": "c1", "name": "get_user_details", "arguments": {"user_id": "raj_sanchez_7340"}}
        return {"tool_calls": [call], "usage": USAGE}
    return {"text": "I found your profile, Raj.", "usage": USAGE}


@pytest.fixture(scope="module")
def results(tmp_path_factory, tau2_root) -> Path:
    root = tmp_path_factory.mktemp("view-conversation")
    with ScriptedModelServer(replies=_reply) as srv:
        run_evaluation(
            benchmark="tau2_airline",
            harness="tool_agent",
            model="agent-model",
            environment="memory",
            benchmark_params={"dataset_path": str(tau2_root), "sample_ids": ["1"]},
            model_base_url=srv.base_url,
            model_api_key="k-view",
            model_api_protocol="openai-chat",
            model_roles={"user": {"id": "user-model"}},
            results_dir=str(root / "results"),
            progress="none",
        )
    return root / "results"


def _get(srv, route: str, **params) -> dict:
    with urllib.request.urlopen(f"{srv.url}{route}?{urlencode(params)}", timeout=30) as res:
        return json.loads(res.read())


def _attempt(srv) -> tuple[str, dict]:
    key = _get(srv, "api/runs")["runs"][0]["key"]
    task = _get(srv, "api/tasks", run=key)["tasks"][0]
    path = _get(srv, "api/task", run=key, dir=task["dir"])["attempts"][0]["path"]
    return key, _get(srv, "api/attempt", run=key, path=path)


def test_the_api_serves_the_conversation_the_grade_and_the_roles(results: Path) -> None:
    with serve([str(results)]) as srv:
        _, att = _attempt(srv)
    transcript = att["transcript"]
    roles = [m["role"] for m in transcript["messages"]]
    assert roles[:2] == ["assistant", "user"] and "tool" in roles and transcript["termination"] == "user_stop"
    assert att["usage_by_role"]["user"]["calls"] == 2 and att["usage"]["calls"] == 2
    info = att["grade"]["details"]["reward_info"]
    assert info["reward_basis"] and set(info["reward_breakdown"]) <= {"DB", "COMMUNICATE", "ACTION", "ENV_ASSERTION"}


def test_the_attempt_page_shows_the_conversation(results: Path, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    driver = browser.start()
    try:
        with serve([str(results)]) as srv:
            key, att = _attempt(srv)
            driver.get(f"{srv.url}#/attempt/{quote(key, safe='')}/{quote(att['path'], safe='')}")
            msgs = browser.wait(
                driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#conversation .conv-msg"), what="messages"
            )
            assert len(msgs) == len(att["transcript"]["messages"])
            kinds = [m.get_attribute("data-role") for m in msgs]
            assert kinds[:2] == ["assistant", "user"] and "tool" in kinds
            text = driver.find_element(By.ID, "conversation").get_attribute("textContent")
            assert "get_user_details" in text and "###STOP###" in text and "user_stop" in text
            grade = driver.find_element(By.ID, "grade-breakdown").get_attribute("textContent")
            assert "reward basis" in grade and "DB" in grade
            usage = driver.find_elements(By.CSS_SELECTOR, "#role-usage tr[data-role='user'] td")
            assert [c.get_attribute("textContent") for c in usage][:2] == ["user", "2"]
            browser.shoot(driver, tmp_path, "attempt-conversation")
            assert not browser.console_errors(driver)
            driver.get(f"{srv.url}#/run/{quote(key, safe='')}")
            page = browser.wait(
                driver,
                lambda: (
                    "model roles" in driver.find_element(By.ID, "main").get_attribute("textContent")
                    and driver.find_element(By.ID, "main").get_attribute("textContent")
                ),
                what="run page",
            )
            assert "user: 2 calls" in page
    finally:
        browser.stop(driver)
