"""Large runs stay fast: a real 5,000-task run and a 20 MB trajectory in headless Chromium. The task table is
paged (100 rows in the DOM), the trajectory is fetched only when its attempt opens and rendered 40 messages at a
time as the reader scrolls. Load times are written to ``timings.json`` in the test's tmp dir."""

from __future__ import annotations

import json
import time
from urllib.parse import quote

import pytest

from agentcompass._view import serve
from agentcompass._view.discover import RunRef
from agentcompass._view.report import attempt_payload
from agentcompass._view.trim import size_of
from tests._view import browser, synth

pytestmark = pytest.mark.slow
N_TASKS = 5000


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    root = tmp_path_factory.mktemp("big")
    run_dir = synth.big_run(root / "results", N_TASKS)
    traj = run_dir / "tasks" / "syn-0" / "sample-1" / "attempt-1" / "syn-0.traj.json"
    size = synth.write_json(traj, synth.msa_trajectory("syn-0", 1000, 20000))
    assert size > 20_000_000
    return root, run_dir, size


def elapsed(d, mark: str) -> int:
    return int(browser.wait(d, lambda: d.execute_script(f"return document.documentElement.dataset.{mark}"), 60, mark))


def test_5000_tasks_and_a_20mb_trajectory(big, tmp_path):
    from selenium.webdriver.common.by import By

    root, run_dir, traj_size = big
    key = f"results/{run_dir.parent.name}/{run_dir.name}"
    timings: dict[str, float] = {"trajectory_bytes": traj_size}
    d = browser.start()
    try:
        with serve([str(root / "results")]) as srv:
            start = time.monotonic()
            d.get(f"{srv.url}#/run/{quote(key, safe='')}")
            timings["run_page_ms"] = elapsed(d, "tasksRendered")
            timings["run_page_wall_ms"] = round((time.monotonic() - start) * 1000)
            assert len(d.find_elements(By.CSS_SELECTOR, "#tasks-table tbody tr")) == 100
            assert d.find_element(By.ID, "page-info").text == f"page 1 of 50 · {N_TASKS} of {N_TASKS} tasks"
            d.find_element(By.ID, "page-next").click()
            browser.wait(d, lambda: d.find_element(By.ID, "page-info").text.startswith("page 2 of 50"), what="page 2")
            start = time.monotonic()
            d.get(f"{srv.url}#/attempt/{quote(key, safe='')}/{quote('tasks/syn-0/sample-1/attempt-1', safe='')}")
            d.refresh()  # a fresh document: the marks count from this navigation
            timings["trajectory_ms"] = elapsed(d, "trajRendered")
            timings["trajectory_wall_ms"] = round((time.monotonic() - start) * 1000)
            steps = d.find_element(By.CSS_SELECTOR, ".traj .steps")
            assert steps.get_attribute("data-rendered") == "40"
            assert "Showing 40 of 2003 messages" in d.find_element(By.CSS_SELECTOR, ".sentinel").text
            d.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
            browser.wait(d, lambda: int(steps.get_attribute("data-rendered")) >= 80, what="next chunk on scroll")
            timings["dom_nodes"] = d.execute_script("return document.getElementsByTagName('*').length")
            browser.shoot(d, tmp_path, "large-trajectory", max_height=2000)
    finally:
        browser.stop(d)
    (tmp_path / "timings.json").write_text(json.dumps(timings, indent=2))
    print("viewer timings:", timings)
    assert timings["run_page_ms"] < 15000 and timings["trajectory_ms"] < 30000, timings


def test_report_cuts_a_20mb_trajectory_to_its_budget(big):
    _, run_dir, _ = big
    ref = RunRef("r", run_dir)
    payload = attempt_payload(ref, "tasks/syn-0/sample-1/attempt-1", 48 * 1024)
    assert payload["trajectory"]["trimmed"] is True and size_of(payload) < 2 * 48 * 1024
    messages = payload["trajectory"]["data"]["messages"]
    elided = [m for m in messages if m.get("agentcompass_elided")]
    assert len(elided) == 1 and elided[0]["agentcompass_elided"] + len(messages) - 1 == 2003
    assert messages[0]["role"] == "system" and messages[-1]["content"].startswith("diff --git")
