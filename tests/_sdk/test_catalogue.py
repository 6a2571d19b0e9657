"""``agentcompass list``: every bundled component, a benchmark's task ids, and the README's table made from them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agentcompass import _sdk
from agentcompass._config.registry import conf_dir, list_ids

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agentcompass", *args], cwd=cwd, capture_output=True, text=True)


def test_list_benchmarks_names_every_bundled_config(tmp_path):
    proc = _cli("list", "benchmarks", "--data-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    listed = [line.split()[0] for line in proc.stdout.splitlines()[1:]]
    assert listed == list_ids("benchmark") == sorted(p.stem for p in (conf_dir() / "benchmark").glob("*.yaml"))
    rows = json.loads(_cli("list", "benchmarks", "--json", "--data-dir", str(tmp_path)).stdout)
    by_id = {r["id"]: r for r in rows}
    assert by_id["swebench_multilingual"]["source"] == "hub: SWE-bench/SWE-bench_Multilingual@846e647b9f33 (test)"
    assert by_id["demo"]["source"] == "bundled: agentcompass/benchmarks/demo_tasks"
    assert by_id["swebench_verified"]["description"] == "SWE-bench Verified (500 human-validated instances)."
    n_demo = len([p for p in (ROOT / "agentcompass/benchmarks/demo_tasks").iterdir() if (p / "task.toml").is_file()])
    assert (by_id["demo"]["n_tasks"], by_id["synthetic"]["n_tasks"]) == (n_demo, 10)  # counted by the listing
    assert all(r["description"] and r["n_tasks"] is None for r in rows if r["id"] not in ("demo", "synthetic"))


@pytest.mark.parametrize("kind", ["harnesses", "environments", "models"])
def test_list_other_kinds(kind, tmp_path):
    rows = _sdk.list_components(kind, data_dir=tmp_path)
    group = {"harnesses": "harness", "environments": "environment", "models": "model"}[kind]
    assert [r["id"] for r in rows] == list_ids(group)
    assert all(r["description"] for r in rows), rows


def test_list_tasks_prints_ids_and_caches_the_count(tmp_path):
    proc = _cli("list", "tasks", "demo", "--data-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    ids = proc.stdout.split()
    assert "hello-file" in ids and len(ids) == len(list((ROOT / "agentcompass/benchmarks/demo_tasks").glob("*/")))
    rows = {r["id"]: r for r in _sdk.list_components("benchmarks", data_dir=tmp_path)}
    assert rows["demo"]["n_tasks"] == len(ids)
    some = _cli("list", "tasks", "demo", "--json", "--benchmark-params", '{"limit": 2}', "--data-dir", str(tmp_path))
    assert json.loads(some.stdout) == ids[:2]


@pytest.mark.parametrize(
    "args,needle",
    [
        (["list", "tasks"], "needs a BENCHMARK"),
        (["list", "planets"], "invalid choice: 'planets'"),
        (["list", "tasks", "nope"], "nope"),
        (["list", "benchmarks", "demo"], "takes no BENCHMARK"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, needle, tmp_path):
    proc = _cli(*args, "--data-dir", str(tmp_path))
    assert proc.returncode == 2 and needle in proc.stderr, (proc.returncode, proc.stderr)
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_readme_benchmark_table_is_the_generated_one():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- benchmarks:start[^>]*-->\n(.*?)<!-- benchmarks:end -->", text, re.S)
    assert m, "README.md lost its benchmarks:start / benchmarks:end markers"
    assert m.group(1) == _sdk.benchmarks_table(), "README's benchmark table differs: regenerate it (docs/benchmarks.md)"
