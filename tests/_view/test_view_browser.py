"""The viewer in headless Chromium over real runs: Runs page, a SWE-bench attempt (mini-swe-agent trajectory,
diff, verifier log), a terminus2 attempt (ATIF steps, keystrokes), status filters, Compare, a live run, and the
static report with the network disabled. One server and one browser for the module; screenshots are kept
under the test session's tmp dir."""

from __future__ import annotations

import json
import os
import threading
import urllib.request
from pathlib import Path

import pytest

from agentcompass._view import serve, write_report
from tests._view import browser
from tests._view.runs import HELLO, SWE_COMMANDS

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def server(view_runs):
    with serve([str(view_runs.results)]) as srv:
        yield srv


@pytest.fixture(scope="module")
def driver():
    d = browser.start()
    yield d
    browser.stop(d)


def css(d, sel):
    from selenium.webdriver.common.by import By

    return d.find_elements(By.CSS_SELECTOR, sel)


def text(el) -> str:
    return el.get_attribute("textContent")


def table_rows(d, table_id: str) -> list[list[str]]:
    return [[text(td).strip() for td in css(tr, "td")] for tr in css(d, f"#{table_id} tbody tr")]


def choose(d, select_id: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(css(d, f"#{select_id}")[0]).select_by_value(value)


def open_page(d, url: str, ready: str) -> None:
    d.get(url)
    browser.wait(d, lambda: css(d, ready), what=ready)


def open_run(d, server, view_runs, name: str) -> None:
    open_page(d, server.url, "#runs-table tbody tr")
    link = [
        a
        for a in css(d, "a.runlink")
        if a.get_attribute("href").endswith(__import__("urllib.parse").parse.quote(view_runs.key(name), safe=""))
    ]
    assert len(link) == 1, name
    link[0].click()
    browser.wait(d, lambda: css(d, "#tasks-table tbody tr"), what="task table")


def click_task(d, task_id: str) -> None:
    row = [tr for tr in css(d, "#tasks-table tbody tr") if tr.get_attribute("data-task") == task_id]
    assert row, task_id
    row[0].click()
    browser.wait(
        d,
        lambda: (
            d.execute_script("return document.documentElement.dataset.view") == "attempt"
            and css(d, "h1 .mono")
            and text(css(d, "h1 .mono")[0]) == task_id
        ),
        what=f"attempt of {task_id}",
    )


def test_runs_page_lists_every_run(driver, server, view_runs, shots):
    open_page(driver, server.url, "#runs-table tbody tr")
    rows = table_rows(driver, "runs-table")
    assert len(rows) == len(view_runs.dirs) == 5
    by_name = {r[1]: r for r in rows}
    assert by_name["swebench-calc"][4:7] == ["swebench", "mini_swe_agent", "scripted-msa"]
    assert by_name["demo__oracle__none"][8].startswith("1.000") and by_name["demo__oracle__none"][8].endswith("/7")
    assert by_name["demo-flaky"][11] == "infra 1"
    field = css(driver, "#runs-filter")[0]
    field.send_keys("terminus2")
    browser.wait(driver, lambda: len(table_rows(driver, "runs-table")) == 1, what="filtered runs")
    assert table_rows(driver, "runs-table")[0][1] == "terminus2-hello"
    browser.shoot(driver, shots, "runs")
    assert not browser.console_errors(driver)


def test_swebench_attempt_shows_steps_diff_and_log(driver, server, view_runs, shots):
    open_run(driver, server, view_runs, "swebench")
    browser.shoot(driver, shots, "run-swebench")
    click_task(driver, "calc__calc-1")
    browser.wait(driver, lambda: css(driver, ".traj .steps .step"), what="trajectory")
    assert css(driver, ".traj")[0].get_attribute("data-format") == "mini-swe-agent"
    assert "mini-swe-agent-1.1" in text(css(driver, ".traj-head")[0])  # written by mini-swe-agent 2.4.6
    commands = [text(p) for p in css(driver, ".step[data-role=assistant] .toolcall pre.command")]
    assert commands == SWE_COMMANDS
    observations = [text(p) for p in css(driver, ".step[data-role=tool] .obs pre.terminal")]
    assert "4:def add(a, b):" in observations[0] and "return a + b" in observations[1]
    assert [text(b) for b in css(driver, ".obs .rc")] == ["returncode 0"] * 3
    assert [text(s) for s in css(driver, ".step .stepno")] == ["step 1", "step 2", "step 3", "step 4"]
    assert "in 300 · out 20" in text(css(driver, ".step[data-role=assistant] .meta")[0])
    exit_step = css(driver, ".step[data-role=exit]")[0]
    assert "Submitted" in text(exit_step) and text(css(exit_step, ".dl.add")[0]) == "+    return a + b"
    assert text(css(driver, "#patch .diff-name")[0]) == "calc/ops.py"
    assert [text(x) for x in css(driver, "#patch .dl.add")] == ["+    return a + b"]
    assert [text(x) for x in css(driver, "#patch .dl.del")] == ["-    return a - b"]
    log = text(css(driver, "#verifier pre")[0])
    assert ">>>>> Start Test Output" in log and "PASSED tests/test_ops.py::test_add_fixed" in log
    browser.shoot(driver, shots, "attempt-swebench")
    assert not browser.console_errors(driver)


def test_terminus2_attempt_shows_keystrokes_and_terminal_output(driver, server, view_runs, shots):
    open_run(driver, server, view_runs, "terminus2")
    click_task(driver, "hello-file")
    browser.wait(driver, lambda: css(driver, ".traj .steps .step"), what="trajectory")
    assert css(driver, ".traj")[0].get_attribute("data-format") == "atif"
    agent_steps = css(driver, ".step[data-source=agent]")
    assert len(agent_steps) == 3
    keys = [text(p) for p in css(agent_steps[0], ".keystrokes pre.keys")]
    assert keys == [HELLO.replace("\n", "⏎\n"), "cat hello.txt⏎\n"]
    assert [text(w) for w in css(agent_steps[0], ".wait")] == ["wait 0.3 s", "wait 0.3 s"]
    assert "Hello, world!" in text(css(agent_steps[0], ".obs pre.terminal")[0])
    assert all(css(s, ".b-passed") for s in agent_steps[1:])  # mark_task_complete, twice
    assert all(css(s, ".dt") for s in agent_steps)  # time since the previous step
    traj = json.loads((view_runs.dirs["terminus2"] / "tasks/hello-file/sample-1/attempt-1/trajectory.json").read_text())
    first = next(st for st in traj["steps"] if st.get("source") == "agent")
    assert f"in {first['metrics']['prompt_tokens']}" in text(css(agent_steps[0], ".metrics")[0])
    assert text(css(driver, "#verifier pre")[0]).strip() == "PASS: hello.txt has the expected content"
    css(driver, "#artifacts > summary")[0].click()  # closed by default
    (row,) = table_rows(driver, "artifacts table")
    assert row[0] == "/app/hello.txt" and row[3] == "saved"
    assert "matched nothing" in text(css(driver, "#artifacts")[0])
    href = css(driver, "#artifacts tbody a")[0].get_attribute("href")
    with urllib.request.urlopen(href, timeout=10) as res:
        assert res.read() == b"Hello, world!\n"
    browser.shoot(driver, shots, "attempt-terminus2")


def test_filters_by_status_error_class_and_reward(driver, server, view_runs, shots):
    open_run(driver, server, view_runs, "flaky")
    ids = lambda: [r[0] for r in table_rows(driver, "tasks-table")]  # noqa: E731
    assert len(ids()) == 7
    choose(driver, "status-filter", "error")
    browser.wait(driver, lambda: ids() == ["hello-file"], what="error filter")
    choose(driver, "status-filter", "passed")
    browser.wait(driver, lambda: len(ids()) == 6 and "hello-file" not in ids(), what="passed filter")
    choose(driver, "status-filter", "")
    choose(driver, "class-filter", "infra")
    browser.wait(driver, lambda: ids() == ["hello-file"], what="class filter")
    choose(driver, "class-filter", "")
    css(driver, "#reward-min")[0].send_keys("0.5")
    browser.wait(driver, lambda: len(ids()) == 6, what="reward filter")
    browser.shoot(driver, shots, "run-flaky-filtered")
    from selenium.webdriver.common.keys import Keys

    css(driver, "#reward-min")[0].send_keys(Keys.BACKSPACE * 3)
    browser.wait(driver, lambda: len(ids()) == 7, what="filter cleared")
    links = {text(a): a.get_attribute("href") for a in css(driver, "a.analysis-link")}
    assert set(links) == {"analysis.md", "analysis.json"}
    with urllib.request.urlopen(links["analysis.md"], timeout=10) as res:
        assert res.read().decode().startswith("# Analysis of run demo-flaky/")
    click_task(driver, "hello-file")
    assert "SandboxError" in text(css(driver, "#error")[0]) and "Traceback" in text(css(driver, "#error pre")[0])
    tabs = css(driver, "#attempt-tabs .tab")
    assert [text(t) for t in tabs] == ["attempt 1 (error)", "attempt 2 (error)"]
    tabs[0].click()
    browser.wait(driver, lambda: text(css(driver, "#attempt-tabs .tab.on")[0]) == "attempt 1 (error)", what="tab")
    assert "flaky failure (call 1)" in text(css(driver, "#error")[0])


def test_compare_two_runs(driver, server, view_runs, shots):
    open_page(driver, server.url, "#runs-table tbody tr")
    for tr in css(driver, "#runs-table tbody tr"):
        if tr.get_attribute("data-key") in (view_runs.key("oracle"), view_runs.key("nop")):
            css(tr, "input.pick")[0].click()
    button = css(driver, "#compare-btn")[0]
    assert button.is_enabled()
    button.click()
    browser.wait(driver, lambda: css(driver, "#compare-table tbody tr"), what="compare table")
    assert text(css(driver, "#flips")[0]) == "0 gained · 7 lost"
    assert text(css(driver, "#mean-diff")[0]) == "-1.0000  95% CI [-1.0000, -1.0000] (cluster_t)"
    assert text(css(driver, "#p-value")[0]).startswith("mcnemar_exact p = 0.0156 (significant at 0.05)")
    assert text(css(driver, "#bootstrap")[0]).startswith("[-1.0000, -1.0000] (seed 0, 10000 resamples)")
    first = css(driver, "#compare-table tbody tr td a")[0]  # a flipped task links to its attempt
    assert "#/attempt/" in first.get_attribute("href")
    rows = css(driver, "#compare-table tbody tr")
    assert len(rows) == 7 and {r.get_attribute("data-flip") for r in rows} == {"lost"}
    choose(driver, "flip-filter", "gained")
    browser.wait(driver, lambda: not css(driver, "#compare-table tbody tr"), what="gained filter")
    browser.shoot(driver, shots, "compare")


def test_a_live_run_refreshes_without_reload(driver, tmp_path, shots):
    from agentcompass import run_evaluation

    results = tmp_path / "live"
    results.mkdir()
    done: dict[str, object] = {}

    def go():
        done["result"] = run_evaluation(
            benchmark="synthetic",
            harness="nop",
            model="none",
            environment="memory",
            overrides=["harness._target_=agentcompass.testing.sleep_harness.SleepHarness"],
            harness_params={"sleep_s": 0.6},
            benchmark_params={"n_tasks": 8},
            task_concurrency=1,
            results_dir=str(results),
            run_name="live",
            progress="none",
        )

    with serve([str(results)]) as srv:
        open_page(driver, srv.url, "main h1")
        driver.execute_script("window.__sameDocument = true")
        worker = threading.Thread(target=go)
        worker.start()
        try:
            browser.wait(driver, lambda: css(driver, "#runs-table tbody tr[data-status=running]"), 20, "run appears")
            css(driver, "a.runlink")[0].click()
            browser.wait(driver, lambda: css(driver, "#partial-note"), what="running note")
            first = len([r for r in table_rows(driver, "tasks-table") if r[1] == "passed"])
            browser.shoot(driver, shots, "live-running")
            browser.wait(driver, lambda: not css(driver, "#partial-note"), 30, "the run to finish")
        finally:
            worker.join(60)
        browser.wait(
            driver,
            lambda: len([r for r in table_rows(driver, "tasks-table") if r[1] == "passed"]) == 8,
            what="all tasks passed",
        )
        assert first < 8 and driver.execute_script("return window.__sameDocument") is True
        assert int(driver.execute_script("return document.documentElement.dataset.renders")) >= 3
    assert done["result"]["metrics"]["mean_reward"] == 1.0


def test_report_renders_the_same_table_offline(driver, server, view_runs, tmp_path, shots):
    open_run(driver, server, view_runs, "flaky")
    served = table_rows(driver, "tasks-table")
    out = tmp_path / "report.html"
    info = write_report(view_runs.dirs["flaky"], out)
    assert info["tasks"] == 7 and info["attempts"] == 14
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0},
    )
    try:
        driver.get(out.as_uri())
        browser.wait(driver, lambda: css(driver, "#tasks-table tbody tr"), what="report task table")
        assert table_rows(driver, "tasks-table") == served
        assert text(css(driver, "#analysis pre")[0]).startswith("# Analysis of run demo-flaky/")
        assert [text(a) for a in css(driver, "a.analysis-link")] == ["analysis.md", "analysis.json"]
        assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
        click_task(driver, "hello-file")
        assert "flaky failure (call 2)" in text(css(driver, "#error pre")[0])
        browser.shoot(driver, shots, "report-attempt")
        assert not browser.console_errors(driver)
    finally:
        driver.execute_cdp_cmd(
            "Network.emulateNetworkConditions",
            {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
        )


def test_a_report_of_two_runs_shows_the_compare_page_offline(driver, view_runs, tmp_path, shots):
    from urllib.parse import quote

    out = tmp_path / "compare.html"
    info = write_report([view_runs.dirs["oracle"], view_runs.dirs["nop"]], out)
    assert info["runs"] == 2
    keys = [f"{d.parent.name}/{d.name}" for d in (view_runs.dirs["oracle"], view_runs.dirs["nop"])]
    driver.get(out.as_uri() + "#/compare/" + "/".join(quote(k, safe="") for k in keys))
    browser.wait(driver, lambda: css(driver, "#compare-table tbody tr"), what="report compare table")
    assert text(css(driver, "#mean-diff")[0]).startswith("-1.0000")
    assert text(css(driver, "#p-value")[0]).startswith("mcnemar_exact p = 0.0156")
    assert text(css(driver, "#flips")[0]) == "0 gained · 7 lost"
    browser.shoot(driver, shots, "report-compare")
    css(driver, "#compare-table tbody tr td a")[0].click()  # a flipped task's attempt, from the embedded data
    browser.wait(driver, lambda: driver.execute_script("return document.documentElement.dataset.view") == "attempt",
                 what="attempt view")  # fmt: skip
    assert not browser.console_errors(driver)


def msa2_trajectory() -> dict:
    """A mini-swe-agent 2.x (``mini-swe-agent-1.1``) trajectory of the tool-calling shape: assistant messages
    carry ``tool_calls`` (function ``bash``, JSON ``arguments``), results come back as ``role: tool`` messages
    with ``tool_call_id`` and ``extra.raw_output`` / ``returncode``; the run ends with a ``role: exit`` message."""

    def call(i: int, cmd: str) -> dict:
        return {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": cmd})},
        }

    return {
        "trajectory_format": "mini-swe-agent-1.1",
        "instance_id": "calc__calc-1",
        "info": {
            "exit_status": "Submitted",
            "submission": "",
            "mini_version": "2.0.0",
            "model_stats": {"instance_cost": 0.0123, "api_calls": 2},
        },
        "messages": [
            {"role": "system", "content": "system prompt"},
            {"role": "user", "content": "Fix calc.ops.add."},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [call(1, "cat calc/ops.py")],
                "extra": {
                    "cost": 0.006,
                    "timestamp": 1767225600.0,
                    "response": {"usage": {"prompt_tokens": 1200, "completion_tokens": 40}},
                },
            },
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": "def add(a, b):\n    return a - b\n",
                "extra": {"raw_output": "def add(a, b):\n    return a - b\n", "returncode": 0},
            },
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Now submit."}],
                "tool_calls": [call(2, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")],
                "extra": {"cost": 0.0063},
            },
            {"role": "tool", "tool_call_id": "call_2", "content": "", "extra": {"raw_output": "", "returncode": 0}},
            {"role": "exit", "content": "", "extra": {"exit_status": "Submitted", "submission": ""}},
        ],
    }


def test_mini_swe_agent_2_tool_calls_render(driver, view_runs, tmp_path):
    import shutil
    from urllib.parse import quote

    run = tmp_path / "res" / "msa2" / "r1"
    shutil.copytree(view_runs.dirs["swebench"], run)
    attempt = run / "tasks" / "calc__calc-1" / "sample-1" / "attempt-1"
    (attempt / "calc__calc-1.traj.json").write_text(json.dumps(msa2_trajectory()))
    with serve([str(tmp_path / "res")]) as srv:
        open_page(
            driver,
            f"{srv.url}#/attempt/{quote('res/msa2/r1', safe='')}/"
            f"{quote('tasks/calc__calc-1/sample-1/attempt-1', safe='')}",
            ".traj .steps .step",
        )
        assert [text(p) for p in css(driver, ".step[data-role=assistant] .toolcall pre.command")] == [
            "cat calc/ops.py",
            "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
        ]
        tool = css(driver, ".step[data-role=tool]")
        assert len(tool) == 2 and "return a - b" in text(css(tool[0], "pre.terminal")[0])
        assert text(css(tool[0], ".rc")[0]) == "returncode 0" and "call_1" in text(tool[0])
        assert "in 1200 · out 40 · $0.0060" in text(css(driver, ".step[data-role=assistant] .meta")[0])
        assert "Now submit." in text(css(driver, ".step[data-role=assistant]")[1])
        assert css(driver, ".step[data-role=exit]") and "Submitted" in text(css(driver, ".traj-head")[0])


HARBOR_ATIF = r"""
import json, sys
from harbor.agents.installed.mini_swe_agent import convert_mini_swe_agent_to_atif
traj = convert_mini_swe_agent_to_atif(json.load(sys.stdin), "session-1")
print(json.dumps(traj.to_json_dict()))
"""


def test_atif_as_harbor_writes_it_renders(driver, view_runs, tmp_path, monkeypatch):
    """An ATIF document made by Harbor's own code (its mini-swe-agent converter, in the reference venv)."""
    import shutil
    from urllib.parse import quote

    from agentcompass.testing.reference import reference_python, run_reference

    if reference_python("harbor") is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("reference venv 'harbor' is missing: run scripts/ensure_reference.sh harbor")
        pytest.skip("reference venv 'harbor' is missing (scripts/ensure_reference.sh harbor)")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network lookups at import
    atif = run_reference("harbor", HARBOR_ATIF, msa2_trajectory())
    run = tmp_path / "res" / "atif" / "r1"
    shutil.copytree(view_runs.dirs["terminus2"], run)
    (run / "tasks" / "hello-file" / "sample-1" / "attempt-1" / "trajectory.json").write_text(json.dumps(atif))
    with serve([str(tmp_path / "res")]) as srv:
        open_page(
            driver,
            f"{srv.url}#/attempt/{quote('res/atif/r1', safe='')}/"
            f"{quote('tasks/hello-file/sample-1/attempt-1', safe='')}",
            ".traj .steps .step",
        )
        assert css(driver, ".traj")[0].get_attribute("data-format") == "atif"
        sources = [s.get_attribute("data-source") for s in css(driver, ".step.atif")]
        assert sources == [s["source"] for s in atif["steps"]] and sources.count("agent") == 2
        agent = css(driver, ".step[data-source=agent]")
        assert "cat calc/ops.py" in text(css(agent[0], ".toolcall")[0])
        assert "return a - b" in text(css(agent[0], ".obs pre.terminal")[0])
        assert "in 1200 · out 40" in text(css(agent[0], ".metrics")[0])


def test_other_trajectory_formats_fall_back_to_a_json_tree(driver, view_runs, tmp_path):
    import shutil
    from urllib.parse import quote

    run = tmp_path / "res" / "other" / "r1"
    shutil.copytree(view_runs.dirs["terminus2"], run)
    events = {"harness": "my-agent", "events": [{"kind": "think", "text": f"thought {i}"} for i in range(120)]}
    (run / "tasks" / "hello-file" / "sample-1" / "attempt-1" / "trajectory.json").write_text(json.dumps(events))
    with serve([str(tmp_path / "res")]) as srv:
        open_page(
            driver,
            f"{srv.url}#/attempt/{quote('res/other/r1', safe='')}/"
            f"{quote('tasks/hello-file/sample-1/attempt-1', safe='')}",
            ".traj .jt",
        )
        assert css(driver, ".traj")[0].get_attribute("data-format") == "json"
        events_node = [n for n in css(driver, ".traj details.jt") if text(n).startswith("events: [120]")]
        css(events_node[0], "summary")[0].click()  # children are built when opened
        entries = lambda: len(css(events_node[0], ":scope > .jc > details.jt"))  # noqa: E731
        browser.wait(driver, lambda: entries() >= 40, what="the first 40 entries")
        driver.execute_script(
            "arguments[0].querySelectorAll('.sentinel button').forEach((b) => b.click())", events_node[0]
        )  # "show all", if not yet scrolled in
        browser.wait(driver, lambda: entries() == 120, what="all 120 entries")
        assert not css(events_node[0], ".sentinel")
