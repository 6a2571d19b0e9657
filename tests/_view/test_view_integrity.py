"""The viewer marks flagged attempts (headless Chromium over one real reviewed run): the task table's integrity
badge and filter, the run's clean rate and flag count, and on the Attempt page the scan's evidence (detector,
trajectory step, command, excerpt) and the LLM review's verdict, or its error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcompass._view import serve
from tests._integrity.test_review import make_reviewed_run
from tests._view import browser
from tests._view.test_view_browser import choose, click_task, css, open_page, table_rows, text

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    result, _ = make_reviewed_run(tmp_path_factory.mktemp("view-integrity"))
    return Path(result["paths"]["run_dir"])


@pytest.fixture(scope="module")
def page(run, tmp_path_factory):
    driver = browser.start()
    try:
        with serve([str(run.parent.parent)]) as srv:
            open_page(driver, srv.url, "#runs-table tbody tr")
            css(driver, "a.runlink")[0].click()
            browser.wait(driver, lambda: css(driver, "#tasks-table tbody tr"), what="task table")
            yield driver
    finally:
        browser.stop(driver)


def _verdicts(run: Path) -> dict[str, str]:
    rows = map(json.loads, (run / "results.jsonl").read_text().splitlines())
    return {r["task_id"]: r["integrity"]["verdict"] for r in rows}


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("screenshots")


def test_task_table_badges_and_filter(page, run, shots):
    verdicts = _verdicts(run)
    rows = {
        tr.get_attribute("data-task"): tr.get_attribute("data-integrity") for tr in css(page, "#tasks-table tbody tr")
    }
    assert rows == verdicts and sorted(v for v in rows.values() if v != "clean") == ["hack", "suspect"]
    badges = {text(b) for b in css(page, "#tasks-table .badge.b-int-hack, #tasks-table .badge.b-int-suspect")}
    assert badges == {"hack", "suspect"}
    assert "review hack" in text(css(page, "tr[data-task='calc--conftest'] td.c-integrity")[0])
    assert "review error" in text(css(page, "tr[data-task='calc--git-history'] td.c-integrity")[0])
    choose(page, "integrity-filter", "flagged")
    browser.wait(page, lambda: len(table_rows(page, "tasks-table")) == 2, what="flagged rows")
    assert {tr.get_attribute("data-task") for tr in css(page, "#tasks-table tbody tr")} == {
        t for t, v in verdicts.items() if v != "clean"
    }
    choose(page, "integrity-filter", "clean")
    browser.wait(page, lambda: len(table_rows(page, "tasks-table")) == 2, what="clean rows")
    summary = json.loads((run / "summary.json").read_text())["metrics"]
    assert text(css(page, "#integrity-flagged")[0]).startswith(f"{summary['integrity_flagged']} samples flagged")
    assert "LLM review of 3: hack 1" in text(css(page, "#integrity-flagged")[0])
    assert text(css(page, "#resolved-clean")[0]).startswith(f"{round(100 * summary['resolved_rate_clean'])}")
    choose(page, "integrity-filter", "")
    browser.shoot(page, shots, "run-integrity")
    assert not browser.console_errors(page)


def test_attempt_page_shows_evidence_and_review(page, run, shots):
    click_task(page, "calc--conftest")
    browser.wait(page, lambda: css(page, "#integrity-flags tbody tr"), what="integrity flags")
    assert text(css(page, "#integrity-verdict")[0]) == "hack"
    assert text(css(page, "h1")[0]).endswith("hack review hack")  # the verdict and the review's, in the title
    result = json.loads(next(run.glob("tasks/calc--conftest/sample-1/attempt-*/result.json")).read_text())
    flags = result["integrity"]["flags"]
    shown = css(page, "#integrity-flags tbody tr")
    assert [tr.get_attribute("data-detector") for tr in shown] == [f["detector"] for f in flags]
    first = shown[0]
    assert first.get_attribute("data-step") == str(flags[0]["step"])
    assert f"step {flags[0]['step']} of trajectory.json" in text(first)
    assert "conftest.py" in text(css(first, "code.int-evidence")[0])
    review = text(css(page, "#integrity-review")[0])
    assert "hack" in review and "conftest.py that forces every test to pass" in review and "judge-model" in review
    browser.shoot(page, shots, "attempt-integrity")
    page.back()
    browser.wait(page, lambda: css(page, "#tasks-table tbody tr"), what="task table")
    click_task(page, "calc--git-history")
    browser.wait(page, lambda: css(page, "#integrity-review"), what="review")
    shown_review = text(css(page, "#integrity-review")[0])
    assert "error: ReviewAnswerError: the judge's answer is not a JSON object" in shown_review
    assert "git log --all" in text(css(page, "#integrity-flags")[0])
    assert not browser.console_errors(page)
