"""An unknown price shows as ``unknown`` in the viewer (runs table and run page), a known one as dollars; cache
hits and the cost they saved are on the run page. Headless Chromium over real runs."""

from __future__ import annotations

import json
import re

import pytest

from agentcompass import run_evaluation
from agentcompass._view import serve
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests._view import browser

pytestmark = pytest.mark.slow


def _answer(request):
    return {"text": re.search(r"answer-\d+", json.dumps(request["body"]["messages"])).group(0)}


def _run(tmp_path, server, model: str, run_id: str, **kw):
    return run_evaluation(
        benchmark="synthetic",
        harness="oracle",
        model=model,
        environment="memory",
        harness_params={"_target_": "tests.helpers.ModelEchoHarness"},
        benchmark_params={"n_tasks": 2},
        model_base_url=server.base_url,
        model_api_protocol="openai-chat",
        results_dir=tmp_path / "results",
        data_dir=tmp_path / "data",
        run_name=model,
        run_id=run_id,
        progress="none",
        **kw,
    )


def test_unknown_cost_is_unknown_and_cache_hits_are_shown(tmp_path):
    with ScriptedModelServer(_answer) as server:
        _run(tmp_path, server, "kw-unknown-model", "u")
        _run(tmp_path, server, "gpt-4o-mini", "k1", model_cache="read_write")
        _run(tmp_path, server, "gpt-4o-mini", "k2", model_cache="read_write")
    driver = browser.start()
    try:
        with serve([str(tmp_path / "results")]) as srv:
            driver.get(srv.url)
            rows = browser.wait(driver, lambda: _rows(driver), what="runs table")
            heads = [h.get_attribute("textContent").strip() for h in _css(driver, "#runs-table thead th")]
            cost = heads.index("Cost")
            cells = sorted(r[cost] for r in rows)
            assert cells.count("unknown") == 1 and sum(c.startswith("$0.0") for c in cells) == 2, (heads, rows)
            link = [a for a in _css(driver, "a.runlink") if a.get_attribute("href").endswith("k2")]
            link[0].click()
            shown = browser.wait(driver, lambda: _run_page_text(driver), what="run page")
            assert re.search(r"cache hits\s*2 \(saved \$0\.0", shown), shown[:3000]
            assert not browser.console_errors(driver)
    finally:
        browser.stop(driver)


def _run_page_text(d):
    if d.execute_script("return document.documentElement.dataset.view") != "run":
        return None
    text = d.execute_script("return document.body.innerText")
    return text if "cache hits" in text else None


def _css(d, sel):
    from selenium.webdriver.common.by import By

    return d.find_elements(By.CSS_SELECTOR, sel)


def _rows(d):
    rows = [
        [td.get_attribute("textContent").strip() for td in _css(tr, "td")] for tr in _css(d, "#runs-table tbody tr")
    ]
    return rows if len(rows) == 3 else None
