"""The viewer's data and HTTP layers over real run directories: what each API returns, both attempt layouts,
compare statistics, confinement to the run directories, read-only serving, and the CLI's bad-input lines."""

from __future__ import annotations

import base64
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from agentcompass._view import serve
from tests._view.runs import HELLO

REPO = Path(__file__).resolve().parents[2]


def get(url: str, host: str | None = None) -> tuple[int, bytes, dict[str, str]]:
    req = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return res.status, res.read(), dict(res.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), dict(exc.headers)


def api(srv, route: str, **params) -> dict:
    from urllib.parse import urlencode

    code, body, _ = get(f"{srv.url}api/{route}?{urlencode(params)}")
    assert code == 200, body
    return json.loads(body)


@pytest.fixture(scope="module")
def server(view_runs):
    with serve([str(view_runs.results)]) as srv:
        yield srv


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(root.rglob("*"))}


def test_runs_rows_carry_the_run_metrics(server, view_runs):
    rows = {r["key"]: r for r in api(server, "runs")["runs"]}
    assert set(rows) == {view_runs.key(n) for n in view_runs.dirs}
    oracle, flaky = rows[view_runs.key("oracle")], rows[view_runs.key("flaky")]
    assert (oracle["benchmark"], oracle["harness"], oracle["status"]) == ("demo", "oracle", "completed")
    assert (oracle["mean_reward"], oracle["mean_reward_denominator"], oracle["n_tasks"]) == (1.0, 7, 7)
    m = view_runs.outputs["flaky"]["metrics"]
    assert flaky["mean_reward"] == m["mean_reward"] and flaky["errors_by_class"]["infra"] == 1
    assert flaky["n_errors"] == 1 and flaky["partial"] is False
    swe = rows[view_runs.key("swebench")]
    assert (swe["harness"], swe["model"], swe["resolved"]) == ("mini_swe_agent", "scripted-msa", 1)
    assert swe["tokens"]["input"] > 0


def test_task_table_and_attempts_of_a_retried_task(server, view_runs):
    key = view_runs.key("flaky")
    tasks = {t["id"]: t for t in api(server, "tasks", run=key)["tasks"]}
    assert len(tasks) == 7
    bad = tasks["hello-file"]
    assert (bad["status"], bad["outcome"], bad["error_class"], bad["error_type"]) == (
        "error",
        "error",
        "infra",
        "SandboxError",
    )
    assert bad["attempts"] == 2 and bad["path"] == "tasks/hello-file/sample-1/attempt-2"
    assert tasks["partial-credit"]["sub"] == {"dir": 1.0, "greeting": 1.0, "script": 1.0, "config": 1.0}
    att = api(server, "attempt", run=key, path=bad["path"])
    assert att["error"]["type"] == "SandboxError" and "Traceback" in att["error"]["traceback"]
    assert "flaky failure (call 2)" in att["error"]["traceback"]
    assert [s["attempt"] for s in att["siblings"]] == [1, 2]
    assert set(att["phases"]) >= {"env_open", "setup", "agent"}


def test_swebench_attempt_has_patch_log_and_mini_swe_agent_trajectory(server, view_runs):
    key = view_runs.key("swebench")
    (task,) = api(server, "tasks", run=key)["tasks"]
    att = api(server, "attempt", run=key, path=task["path"])
    assert att["patch"]["source"] == "patch.diff" and "+    return a + b" in att["patch"]["text"]
    assert ">>>>> Start Test Output" in att["verifier_log"]["text"]
    assert "tests/test_ops.py::test_add_fixed" in att["verifier_log"]["text"]
    traj = att["trajectory"]
    assert traj["name"] == "calc__calc-1.traj.json"
    code, body, headers = get(f"{server.url}api/file?run={key}&path={traj['path']}")
    assert code == 200 and headers["Content-Type"] == "application/json"
    data = json.loads(body)
    assert data["trajectory_format"] == "mini-swe-agent-1.1" and data["info"]["exit_status"] == "Submitted"


def test_compare_oracle_and_nop(server, view_runs):
    c = api(server, "compare", a=view_runs.key("oracle"), b=view_runs.key("nop"))
    assert c["same_benchmark"] and c["n_lost"] == 7 and c["n_gained"] == 0
    s = c["stats"]
    assert (s["n"], s["mean_a"], s["mean_b"], s["mean_diff"], s["sd_diff"]) == (7, 1.0, 0.0, -1.0, 0.0)
    assert s["test"] == {"name": "mcnemar_exact", "p_value": 0.015625, "discordant": 7}
    assert s["ci"]["method"] == "cluster_t" and s["bootstrap"]["method"] == "paired_bootstrap_percentile"
    assert {r["flip"] for r in c["tasks"]} == {"lost"}
    assert [r["label"] for r in c["comparison"]["leaderboard"]] == ["A", "B"]


def test_the_compare_page_has_the_numbers_of_compare_runs(server, view_runs):
    """One implementation: the viewer's statistics are compare_runs' on the same two run directories."""
    from agentcompass import compare_runs

    c = api(server, "compare", a=view_runs.key("oracle"), b=view_runs.key("nop"))
    ref = compare_runs(view_runs.dirs["oracle"], view_runs.dirs["nop"])
    for key in ("mean_diff", "ci", "bootstrap", "test", "p_holm", "b_better", "a_better"):
        assert c["stats"][key] == ref["pairs"][0][key], key


def test_sample_layout_and_unknown_fields(tmp_path, view_runs):
    """``tasks/<id>/sample-<j>/attempt-<n>/`` with a ``sample`` field on result lines (and unknown fields)."""
    run = tmp_path / "res" / "demo-samples" / "r1"
    shutil.copytree(view_runs.dirs["oracle"], run)
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    lines = []
    for row in rows:
        task_dir = run / "tasks" / row["task_id"]
        shutil.copytree(task_dir / "sample-1" / "attempt-1", task_dir / "sample-2" / "attempt-1")
        for j in (1, 2):
            lines.append(
                {
                    **row,
                    "sample": j,
                    "future_field": {"x": 1},
                    "attempt_dir": str(task_dir / f"sample-{j}" / "attempt-1"),
                    "reward": float(j - 1),
                    "rewards": {"reward": float(j - 1)},
                }
            )
    (run / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (run / "summary.json").unlink()
    with serve([str(tmp_path / "res")]) as srv:
        (row,) = api(srv, "runs")["runs"]
        assert row["partial"] and row["mean_reward"] == 0.5 and row["mean_reward_denominator"] == 14
        tasks = api(srv, "tasks", run=row["key"])["tasks"]
        assert len(tasks) == 14 and {t["sample"] for t in tasks} == {1, 2}
        hello = [t for t in tasks if t["id"] == "hello-file"]
        assert [t["path"] for t in hello] == [
            "tasks/hello-file/sample-1/attempt-1",
            "tasks/hello-file/sample-2/attempt-1",
        ]
        att = api(srv, "attempt", run=row["key"], path=hello[1]["path"])
        assert att["sample"] == 2 and att["attempt"] == 1
        assert [(s["sample"], s["attempt"]) for s in att["siblings"]] == [(1, 1), (2, 1)]
        listed = api(srv, "task", run=row["key"], dir="tasks/hello-file")["attempts"]
        assert len(listed) == 2


def test_paths_are_confined_and_nothing_is_written(server, view_runs):
    before = snapshot(view_runs.results)
    key = view_runs.key("oracle")
    for bad in ("../../../../etc/passwd", "/etc/passwd", "tasks/../../x", "tasks/%2e%2e/%2e%2e/%2e%2e/x"):
        code, body, _ = get(f"{server.url}api/file?run={key}&path={bad}")
        assert code in (400, 404), (bad, code)
        assert b"root:" not in body
    code, body, _ = get(f"{server.url}api/attempt?run={key}&path=run.json")
    assert code == 400 and b"not an attempt directory" in body
    assert get(f"{server.url}api/run?run=nope")[0] == 404
    req = urllib.request.Request(f"{server.url}api/runs", data=b"{}", method="POST")
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=10)
    assert err.value.code == 405
    code, _, headers = get(server.url)
    assert code == 200 and "default-src 'none'" in headers["Content-Security-Policy"]
    assert get(f"{server.url}api/runs", host="evil.example:80")[0] == 403  # DNS rebinding
    assert get(f"{server.url}api/runs", host=f"localhost:{server.port}")[0] == 200
    api(server, "tasks", run=key)
    assert snapshot(view_runs.results) == before


def test_a_symlink_out_of_the_run_is_refused(tmp_path, view_runs):
    run = tmp_path / "res" / "demo" / "r1"
    shutil.copytree(view_runs.dirs["oracle"], run)
    secret = tmp_path / "outside.txt"
    secret.write_text("outside the run")
    (run / "tasks" / "hello-file" / "sample-1" / "attempt-1" / "link.txt").symlink_to(secret)
    with serve([str(tmp_path / "res")]) as srv:
        key = api(srv, "runs")["runs"][0]["key"]
        code, body, _ = get(f"{srv.url}api/file?run={key}&path=tasks/hello-file/sample-1/attempt-1/link.txt")
    assert code == 400 and b"outside the run" not in body


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "agentcompass", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=REPO,
    )


@pytest.mark.parametrize(
    "args, needle",
    [
        (["view", "/no/such/dir"], "'/no/such/dir' is not a directory"),
        (["view", ".", "--port", "70000"], "--port 70000: must be 0-65535"),
        (["report", "/no/such/run"], "is not a run directory (no run.json)"),
        (["report", ".", "--max-attempt-kb", "x"], "--max-attempt-kb 'x'"),
        (["report", ".", "--max-attempt-kb", "1"], "--max-attempt-kb 1: must be at least 4"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, needle, capsys, tmp_path, view_runs):
    from agentcompass._cli.main import main

    args = [str(view_runs.dirs["oracle"]) if a == "." and args[0] == "report" else a for a in args]
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's own usage errors
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert needle in err.strip().splitlines()[-1] and "Traceback" not in err  # argparse adds its usage


def test_view_command_prints_the_url_and_serves(view_runs):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentcompass", "view", str(view_runs.results), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )
    try:
        first = proc.stdout.readline()
        url = proc.stdout.readline().strip()
        assert f"{len(view_runs.dirs)} run(s)" in first and url.startswith("http://127.0.0.1:")
        code, body, _ = get(url + "api/runs")
        assert code == 200 and len(json.loads(body)["runs"]) == len(view_runs.dirs)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == 0


def test_report_command_writes_one_file(tmp_path, view_runs):
    out = tmp_path / "r" / "report.html"
    proc = _cli("report", str(view_runs.dirs["terminus2"]), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert f"report: {out}" in proc.stdout and "1 tasks, 1 attempts" in proc.stdout
    html = out.read_text()
    assert html.startswith("<!doctype html>") and "connect-src" not in html.split("<body>")[0]
    boot = json.loads(html.split('<script id="ac-boot" type="application/json">', 1)[1].split("</script>", 1)[0])
    assert boot["mode"] == "report" and [t["id"] for t in boot["tasks"]] == ["hello-file"]
    (blob,) = boot["attempts"].values()  # gzip + base64, decoded by the page when opened
    att = json.loads(gzip.decompress(base64.b64decode(blob)))
    steps = att["trajectory"]["data"]["steps"]
    keys = [
        c["arguments"]["keystrokes"]
        for s in steps
        for c in s.get("tool_calls", [])
        if c["function_name"] == "bash_command"
    ]
    assert keys[0] == HELLO and att["verifier_log"]["text"].startswith("PASS")


def test_a_report_of_two_runs_holds_their_comparison(tmp_path, view_runs):
    """``report A B``: both runs' parts and each ordered pair's Compare page, with compare_runs' numbers."""
    from agentcompass import compare_runs

    out = tmp_path / "two.html"
    proc = _cli("report", str(view_runs.dirs["oracle"]), str(view_runs.dirs["nop"]), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "2 runs, 14 tasks, 14 attempts" in proc.stdout
    html = out.read_text()
    boot = json.loads(html.split('<script id="ac-boot" type="application/json">', 1)[1].split("</script>", 1)[0])
    a, b = (r["key"] for r in boot["runs"])  # <run_name>/<run_id>, in the order given
    assert (
        a.startswith("demo__oracle")
        and set(boot["more"]) == {a, b}
        and set(boot["compare"]) == {f"{a}|{b}", f"{b}|{a}"}
    )
    pair = boot["compare"][f"{a}|{b}"]["stats"]
    ref = compare_runs(view_runs.dirs["oracle"], view_runs.dirs["nop"])["pairs"][0]
    assert pair["ci"] == ref["ci"] and pair["test"] == ref["test"] and pair["a_better"] == ref["a_better"]
    assert all(r["a"]["path"] for r in boot["compare"][f"{a}|{b}"]["tasks"])  # each task links to its attempt
    assert len(boot["more"][b]["attempts"]) == 7


def test_a_report_of_runs_of_different_benchmarks_is_one_line(tmp_path, view_runs):
    other = tmp_path / "res" / "other" / "r1"
    shutil.copytree(view_runs.dirs["nop"], other)
    summary = json.loads((other / "summary.json").read_text())
    summary["metadata"]["benchmark"] = "swebench"
    (other / "summary.json").write_text(json.dumps(summary))
    proc = _cli("report", str(view_runs.dirs["oracle"]), str(other), "-o", str(tmp_path / "x.html"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "different benchmarks" in proc.stderr
    assert not (tmp_path / "x.html").exists()


def test_a_run_given_twice_is_listed_once(view_runs):
    with serve([str(view_runs.results), str(view_runs.dirs["oracle"]), str(view_runs.results)]) as srv:
        keys = [r["key"] for r in api(srv, "runs")["runs"]]
        assert len(keys) == len(view_runs.dirs) == len(set(keys))
        assert api(srv, "stamp")["stamp"] == api(srv, "runs")["stamp"]
