"""docs/options.md is generated from the options table: the test fails when the page is stale."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

from agentcompass._config import options, reference

ROOT = Path(__file__).resolve().parents[2]


def test_options_page_is_up_to_date():
    page = (ROOT / reference.PAGE).read_text()
    assert page == reference.options_markdown(), "docs/options.md is stale: run python scripts/generate.py"


def test_generate_check_fails_on_a_stale_page(tmp_path):
    ok = subprocess.run([sys.executable, "scripts/generate.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    copy = tmp_path / "repo"
    (copy / "docs").mkdir(parents=True)
    (copy / "scripts").mkdir()
    (copy / "scripts" / "generate.py").write_text((ROOT / "scripts" / "generate.py").read_text())
    (copy / reference.PAGE).write_text((ROOT / reference.PAGE).read_text().replace("retries included", "retries"))
    (copy / "docs" / "results.md").write_text((ROOT / "docs" / "results.md").read_text())  # its schema tables
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    stale = subprocess.run(
        [sys.executable, "scripts/generate.py", "--check"], cwd=copy, capture_output=True, text=True, env=env
    )
    assert stale.returncode == 1
    assert "docs/options.md is out of date" in stale.stderr


def test_every_option_has_a_row_with_its_flag_key_and_default(monkeypatch):
    page = reference.options_markdown()
    for row in options.table():
        line = next(line for line in page.splitlines() if line.startswith(f"| `{row.name}` |"))
        if row.cli:
            assert row.cli in line
        if row.key:
            assert f"`{row.key}`" in line
    assert "| `task_concurrency` | `--task-concurrency N` | `runtime.task_concurrency` |" in page
    assert "`4` | >= 1 |" in page
    # a change to the table changes the page
    first = options.table()[0]
    changed = (dataclasses.replace(first, help="something else"), *options.table()[1:])
    monkeypatch.setattr(options, "table", lambda: changed)
    assert "something else" in reference.options_markdown()
