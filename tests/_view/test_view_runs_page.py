"""The Runs page in headless Chromium: a run still running shows "running" and the figures of its samples
finished so far, or a dash before the first one (never the zeros of an empty set)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentcompass._view import serve
from agentcompass._view.discover import RunRef
from agentcompass._view.runs import run_row
from tests._view import browser

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
FIGURES = ("c-mean_reward", "c-pass_rate", "c-n_errors", "c-tokens", "c-cost_usd")


@pytest.fixture(scope="module")
def driver():
    d = browser.start()
    yield d
    browser.stop(d)


def css(d, sel):
    from selenium.webdriver.common.by import By

    return d.find_elements(By.CSS_SELECTOR, sel)


def cells(d) -> dict[str, str]:
    (tr,) = css(d, "#runs-table tbody tr")
    return {td.get_attribute("class"): td.get_attribute("textContent") for td in css(tr, "td")}


def running_run(results: Path, sleep_s: float, n_tasks: int) -> tuple[subprocess.Popen, Path]:
    """A real run of ``n_tasks`` synthetic tasks, one at a time, each agent sleeping ``sleep_s``."""
    args = ["run", "synthetic", "nop", "none", "--env", "memory", "--task-concurrency", "1", "--progress", "none"]
    args += ["harness._target_=agentcompass.testing.sleep_harness.SleepHarness", f"benchmark.n_tasks={n_tasks}"]
    args += ["--harness-params", json.dumps({"sleep_s": sleep_s}), "--results-dir", str(results)]
    proc = subprocess.Popen([sys.executable, "-m", "agentcompass", *args], cwd=ROOT, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = list(results.rglob("run.json"))
        if found and json.loads(found[0].read_text() or "{}").get("status") == "running":
            return proc, found[0].parent
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("the run did not start")


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(60)


def ref(run_dir: Path) -> RunRef:
    return RunRef(key="r", path=run_dir)


def test_a_running_run_shows_a_dash_before_its_first_sample(driver, tmp_path):
    proc, run_dir = running_run(tmp_path / "results", 60.0, 2)
    try:
        row = run_row(ref(run_dir))
        assert row["status"] == "running" and row["mean_reward"] is None and row["pass_rate"] is None, row
        with serve([str(tmp_path / "results")]) as srv:
            driver.get(srv.url)
            browser.wait(driver, lambda: css(driver, "#runs-table tbody tr[data-status=running]"), what="the run")
            shown = cells(driver)
            assert shown["c-duration_s"] == "running" and shown["c-n_tasks"] == "0/2 samples", shown
            assert all(shown[c] == "–" for c in FIGURES), shown
            assert not browser.console_errors(driver)
    finally:
        stop(proc)


def test_a_running_run_shows_its_figures_so_far(driver, tmp_path):
    proc, run_dir = running_run(tmp_path / "results", 1.0, 30)
    try:
        deadline = time.monotonic() + 60
        while not (run_dir / "results.jsonl").is_file() or not (run_dir / "results.jsonl").read_text().strip():
            assert time.monotonic() < deadline, "no sample finished"
            time.sleep(0.05)
        with serve([str(tmp_path / "results")]) as srv:
            driver.get(srv.url)
            browser.wait(driver, lambda: css(driver, "#runs-table tbody tr[data-status=running]"), what="the run")
            shown = cells(driver)
            assert shown["c-mean_reward"].startswith("1.000 /") and shown["c-pass_rate"] == "100.0%", shown
            so_far = css(driver, "#runs-table td.c-mean_reward .partial")[0].get_attribute("title")
            assert so_far.startswith("so far: ") and so_far.endswith(" finished"), so_far
    finally:
        stop(proc)


def test_a_reused_run_shows_its_first_start_and_every_session(driver, tmp_path):
    results = tmp_path / "results"
    for extra in ([], ["--reuse", "-k", "2"]):
        argv = [sys.executable, "-m", "agentcompass", "run", "demo", "oracle", "none", "--progress", "none", *extra]
        subprocess.run([*argv, "--results-dir", str(results)], check=True, capture_output=True, cwd=ROOT)
    (summary,) = results.rglob("summary.json")
    md = json.loads(summary.read_text())["metadata"]
    with serve([str(results)]) as srv:
        driver.get(srv.url)
        browser.wait(driver, lambda: css(driver, "a.runlink"), what="the run")
        (started,) = css(driver, "#runs-table td.c-started_at")
        assert started.get_attribute("title").startswith(md["started_at"][:19].replace("T", " "))
        css(driver, "a.runlink")[0].click()
        browser.wait(driver, lambda: css(driver, "#sessions li"), what="the sessions")
        items = [li.get_attribute("textContent") for li in css(driver, "#sessions li")]
        assert len(items) == 2 and items[0].endswith("7 samples run · completed (first)"), items
        assert items[1].endswith("7 samples run · completed (--reuse)"), items
        assert items[0].startswith(md["sessions"][0]["started_at"][:19].replace("T", " ")), items
        assert not browser.console_errors(driver)


LAYOUT = """() => {
  const scroller = document.querySelector('#runs .scrollx') || document.documentElement;
  const page = document.documentElement;
  const lines = [];
  for (const tr of document.querySelectorAll('#runs-table tbody tr')) {
    let most = 1;
    for (const td of tr.children) {
      const range = document.createRange();
      range.selectNodeContents(td);
      const tops = Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => r.top);
      const line = parseFloat(getComputedStyle(td).fontSize) * 1.2;
      if (tops.length) most = Math.max(most, 1 + Math.floor((Math.max(...tops) - Math.min(...tops)) / line + 0.25));
    }
    lines.push(most);
  }
  return {page: [page.scrollWidth, page.clientWidth], table: [scroller.scrollWidth, scroller.clientWidth], lines};
}"""


@pytest.fixture(scope="module")
def many_runs(tmp_path_factory):
    """Runs with long names, as real ones have: the table must fit anyway, truncating with a tooltip."""
    results = tmp_path_factory.mktemp("many") / "results"
    names = ["swebench_verified__mini_swe_agent__Qwen3-Coder-480B-A35B-Instruct-FP8-long-run", "demo-short"]
    for i, name in enumerate(names):
        argv = [sys.executable, "-m", "agentcompass", "run", "demo", "oracle", "none", "--progress", "none"]
        argv += ["--run-name", name, "-k", str(i + 1), "--results-dir", str(results)]
        subprocess.run(argv, check=True, capture_output=True, cwd=ROOT)
    return results, names


@pytest.mark.parametrize("width", [1280, 1920])
def test_the_runs_table_fits_the_window_one_line_per_row(driver, many_runs, width):
    results, names = many_runs
    driver.set_window_size(width, 900)
    try:
        with serve([str(results)]) as srv:
            driver.get(srv.url)
            browser.wait(driver, lambda: len(css(driver, "#runs-table tbody tr")) == len(names), what="the runs")
            assert driver.execute_script("return window.innerWidth") <= width
            got = driver.execute_script("return (" + LAYOUT + ")()")
            assert got["page"][0] <= got["page"][1] and got["table"][0] <= got["table"][1], got  # no scrolling
            assert got["lines"] == [1] * len(names), got  # one line per row
            link = next(a for a in css(driver, "a.runlink") if a.get_attribute("textContent") == names[0])
            assert link.find_element("xpath", "./ancestor::td").get_attribute("title") == names[0]  # the whole name
            started = css(driver, "#runs-table td.c-started_at")[0]
            assert started.get_attribute("title").endswith("Z") and len(started.get_attribute("textContent")) <= 11
    finally:
        driver.set_window_size(1400, 1000)
