"""Every count names what it counts (tasks, samples, tries) and agrees with summary.json: a demo run with
``-k 3`` read in the CLI's end-of-run table, the viewer's Runs and Run pages and the static report."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agentcompass._view import serve, write_report
from tests._view import browser

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sampled(tmp_path_factory):
    results = tmp_path_factory.mktemp("counts") / "results"
    args = ["run", "demo", "oracle", "none", "-k", "3", "--task-concurrency", "8", "--progress", "none"]
    proc = subprocess.run(
        [sys.executable, "-m", "agentcompass", *args, "--results-dir", str(results)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = [p.parent for p in results.rglob("summary.json")]
    return proc.stdout, run_dir, json.loads((run_dir / "summary.json").read_text())


@pytest.fixture(scope="module")
def driver():
    d = browser.start()
    yield d
    browser.stop(d)


def css(d, sel):
    from selenium.webdriver.common.by import By

    return d.find_elements(By.CSS_SELECTOR, sel)


def text(d, sel) -> str:
    return css(d, sel)[0].get_attribute("textContent")


def test_the_cli_names_the_unit_of_every_count(sampled):
    out, _, summary = sampled
    m = summary["metrics"]
    assert (m["n_tasks"], m["n_samples"], m["samples_per_task"]) == (7, 21, 3)
    line = next(ln for ln in out.splitlines() if ln.startswith("tasks="))
    assert f"errors={m['n_errors']} of {m['n_samples']} samples" in line
    assert f"(over {m['n_samples']} samples of {m['n_tasks']} tasks, errors as 0)" in line
    assert f"(over {m['n_valid_rewards']} samples)" in line and f"(of {m['n_samples']} samples)" in line
    assert f"resolved={m['resolved']}/{m['n_samples']} samples (" in out
    for figure in ("mean_reward", "pass_rate", "resolved_rate"):
        row = next(ln for ln in out.splitlines() if ln.startswith(figure + " "))
        assert row.rstrip().split("over ")[1].startswith(f"{m[figure + '_ci']['n']} tasks"), row


def run_page_counts(d) -> dict[str, str]:
    return {k: text(d, "#" + k) for k in ("mean-reward", "pass-rate", "resolved", "n-tasks", "n-tries", "n-errors")}


def expected_run_page(m: dict) -> dict[str, str]:
    ci = m["mean_reward_ci"]
    return {
        "mean-reward": f"over {m['n_samples']} samples of {m['n_tasks']} tasks (errors as 0)",
        "pass-rate": f"of {m['n_samples']} samples",
        "resolved": f"{m['resolved']} of {m['n_samples']} samples",
        "n-tasks": f"{m['n_tasks']} tasks × {m['samples_per_task']} samples = {m['n_samples']} samples",
        "n-tries": f"{m['n_tries']} tries ({m['n_retries']} retries)",
        "n-errors": f"{m['n_errors']} samples",
        "interval": f"{ci['method']} over {ci['n']} tasks",
    }


def check_run_page(d, m: dict) -> None:
    shown = run_page_counts(d)
    want = expected_run_page(m)
    for key, value in shown.items():
        assert want[key] in value, (key, value)
    for key in ("mean-reward", "pass-rate", "resolved"):  # every interval is over tasks, never over samples
        assert shown[key].endswith(want["interval"]), shown[key]
        assert not re.search(r"(wilson|cluster_t) over \d+ samples", shown[key]), shown[key]


def test_the_viewer_and_the_report_name_the_unit_of_every_count(sampled, driver, tmp_path):
    _, run_dir, summary = sampled
    m = summary["metrics"]
    with serve([str(run_dir.parents[1])]) as srv:
        driver.get(srv.url)
        browser.wait(driver, lambda: css(driver, "#runs-table tbody tr"), what="runs table")
        heads = {th.get_attribute("data-col"): th.get_attribute("textContent") for th in css(driver, "#runs-table th")}
        assert heads["n_tasks"].startswith("Tasks × samples") and heads["resolved"].startswith("Resolved / samples")
        cells = {td.get_attribute("class"): td.get_attribute("textContent") for td in css(driver, "#runs-table td")}
        assert cells["c-n_tasks"] == f"{m['n_tasks']} × {m['samples_per_task']}"
        assert cells["c-resolved"] == f"{m['resolved']}/{m['n_samples']}"
        assert cells["c-mean_reward"].endswith(f"/{m['mean_reward_denominator']}")
        css(driver, "a.runlink")[0].click()
        browser.wait(driver, lambda: css(driver, "#mean-reward"), what="run page")
        check_run_page(driver, m)
        assert not browser.console_errors(driver)
    out = tmp_path / "report.html"
    write_report(run_dir, out)
    driver.get(out.as_uri())
    browser.wait(driver, lambda: css(driver, "#mean-reward"), what="report run page")
    check_run_page(driver, m)
