"""Each attempt is scanned as its result.json is written (the file written once, with its verdict; its row carries
the verdict's summary); the finalisation scans only what has no verdict, and a scan that fails never fails the
attempt."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from agentcompass import run_evaluation
from agentcompass._orchestrator.metrics import integrity

N_TASKS = 5


def _run(tmp_path: Path, **kw: Any) -> Path:
    result = run_evaluation(
        benchmark="synthetic",
        harness="nop",
        model="none",
        environment="memory",
        benchmark_params={"n_tasks": N_TASKS},
        results_dir=str(tmp_path),
        progress="none",
        **kw,
    )
    return Path(result["paths"]["run_dir"])


def _counting(monkeypatch: pytest.MonkeyPatch, fail_first: int = 0) -> dict[str, int]:
    """Count the scans (``scan_result``) and the finalisation's read-back scans (``scan_record``); the first
    ``fail_first`` scans raise."""
    calls = {"scan_result": 0, "scan_record": 0}
    scan_result, scan_record = integrity.scan_result, integrity.scan_record

    def counted_result(*args: Any, **kwargs: Any) -> Any:
        calls["scan_result"] += 1
        if calls["scan_result"] <= fail_first:
            raise RuntimeError("a detector failed")
        return scan_result(*args, **kwargs)

    def counted_record(*args: Any, **kwargs: Any) -> Any:
        calls["scan_record"] += 1
        return scan_record(*args, **kwargs)

    monkeypatch.setattr(integrity, "scan_result", counted_result)
    monkeypatch.setattr(integrity, "scan_record", counted_record)
    return calls


def _results(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(run_dir.glob("tasks/*/sample-*/attempt-*/result.json"))]


def _rows(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines() if line]


def test_each_attempt_is_scanned_once_as_it_ends(tmp_path, monkeypatch):
    calls = _counting(monkeypatch)
    run_dir = _run(tmp_path)
    assert calls == {"scan_result": N_TASKS, "scan_record": 0}  # nothing read back at the finalisation
    results = _results(run_dir)
    assert len(results) == N_TASKS
    assert all(r["integrity"] == {"verdict": "clean", "flags": [], "n_flags": 0} for r in results)
    rows = _rows(run_dir)
    assert len(rows) == N_TASKS
    assert all(row["integrity"] == {"verdict": "clean", "detectors": []} for row in rows)


def test_a_failed_scan_leaves_the_attempt_to_the_finalisation(tmp_path, monkeypatch, caplog):
    calls = _counting(monkeypatch, fail_first=N_TASKS)  # every attempt's own scan fails
    with caplog.at_level(logging.WARNING, logger="agentcompass"):
        run_dir = _run(tmp_path)
    assert calls == {"scan_result": 2 * N_TASKS, "scan_record": N_TASKS}  # each scanned again, read back
    assert (
        sum("integrity scan of" in r.getMessage() and "a detector failed" in r.getMessage() for r in caplog.records)
        == N_TASKS
    )
    results = _results(run_dir)
    assert [r["status"] for r in results] == ["completed"] * N_TASKS  # the attempts stand
    assert all(r["integrity"]["verdict"] == "clean" for r in results)
    assert all(row["integrity"]["verdict"] == "clean" for row in _rows(run_dir))


def test_no_scan_when_it_is_off(tmp_path, monkeypatch):
    calls = _counting(monkeypatch)
    run_dir = _run(tmp_path, integrity_scan=False)
    assert calls == {"scan_result": 0, "scan_record": 0}
    assert not any("integrity" in r for r in _results(run_dir))
    assert not any("integrity" in row for row in _rows(run_dir))
