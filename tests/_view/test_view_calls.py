"""The Attempt page's model calls: a run whose agent calls the gateway (a chat agent on a Messages endpoint:
translated) and a run whose harness calls ``complete``; the API lists every call with its totals, serves one
call's whole record, never a key or a token; in Chromium the section shows the rows and opens a call."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest

from agentcompass import run_evaluation
from agentcompass._view import serve
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests._view import browser

KEY = "sk-VIEW-calls-secret-4242"


def _answer(request):
    n = re.search(r"answer-(\d+)", json.dumps(request["body"])).group(1)
    return {"text": f"answer-{n}", "usage": {"input_tokens": 12, "output_tokens": 4}}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("view-calls")
    with ScriptedModelServer(replies=_answer) as srv:
        for harness, protocol, name in (
            ("GatewayEchoHarness", "anthropic-messages", "gateway-run"),
            ("LoopHarness", "openai-chat", "complete-run"),
        ):
            run_evaluation(
                benchmark="synthetic",
                harness="nop",
                environment="local",
                model="calls-model",
                overrides=[f"harness._target_=tests.helpers.{harness}"]
                + (["+harness.way=complete", "+harness.n_calls=2"] if harness == "LoopHarness" else []),
                benchmark_params={"n_tasks": 1},
                model_base_url=srv.base_url,
                model_api_key=KEY,
                model_api_protocol=protocol,
                environment_params={"root_dir": str(root / "ws")},
                results_dir=str(root / "results"),
                run_name=name,
                progress="none",
            )
    return root / "results"


def _get(srv, route: str, **params) -> bytes:
    with urllib.request.urlopen(f"{srv.url}{route}?{urlencode(params)}", timeout=30) as res:
        return res.read()


def _attempt(srv, name: str) -> tuple[str, dict]:
    runs = json.loads(_get(srv, "api/runs"))["runs"]
    key = next(r["key"] for r in runs if f"/{name}/" in r["key"] + "/")
    task = json.loads(_get(srv, "api/tasks", run=key))["tasks"][0]
    path = json.loads(_get(srv, "api/task", run=key, dir=task["dir"]))["attempts"][0]["path"]
    return key, json.loads(_get(srv, "api/attempt", run=key, path=path))


def test_the_api_lists_the_calls_and_serves_one_whole(results: Path) -> None:
    with serve([str(results)]) as srv:
        key, att = _attempt(srv, "gateway-run")
        calls = att["model_calls"]
        assert calls["totals"]["calls"] == 1 and calls["totals"]["input"] == att["usage"]["input"] == 12
        (row,) = calls["rows"]
        assert (row["source"], row["agent_protocol"], row["upstream_protocol"]) == (
            "gateway",
            "openai-chat",
            "anthropic-messages",
        )
        assert row["translated"] and row["status"] == "ok" and row["text"] == "answer-0"
        line = json.loads(_get(srv, "api/call", run=key, path=att["path"], index=0))
        assert line["request"]["body"]["messages"][0]["content"].startswith("Submit")
        assert line["upstream_request"]["model"] == "calls-model"
        ckey, catt = _attempt(srv, "complete-run")
        assert [r["source"] for r in catt["model_calls"]["rows"]] == ["client", "client"]
        with pytest.raises(urllib.error.HTTPError) as info:
            _get(srv, "api/call", run=key, path=att["path"], index=5)
        assert info.value.code == 400
        served = b"".join(
            [_get(srv, "api/attempt", run=k, path=a["path"]) for k, a in ((key, att), (ckey, catt))]
            + [_get(srv, "api/call", run=key, path=att["path"], index=0)]
            + [_get(srv, "api/file", run=key, path=att["path"] + "/model_calls.jsonl")]
        )
    assert KEY.encode() not in served and b"acgw-" not in served


@pytest.mark.slow
def test_the_attempt_page_shows_the_calls_and_opens_one(results: Path, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    driver = browser.start()
    try:
        with serve([str(results)]) as srv:
            key, att = _attempt(srv, "gateway-run")
            driver.get(f"{srv.url}#/attempt/{quote(key, safe='')}/{quote(att['path'], safe='')}")
            rows = browser.wait(
                driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#calls tr.call-row"), what="calls"
            )
            cells = [c.get_attribute("textContent") for c in rows[0].find_elements(By.TAG_NAME, "td")]
            assert cells[2] == "openai-chat → anthropic-messages · stream" and "answer-0" in cells[9]
            assert cells[4].startswith("ok") and cells[5] == "12 / 4"
            rows[0].click()
            tree = browser.wait(
                driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#calls .call-detail .jt"), what="call"
            )
            assert "call 1" in tree[0].get_attribute("textContent")
            browser.shoot(driver, tmp_path, "attempt-calls")
            assert not browser.console_errors(driver)
    finally:
        browser.stop(driver)
