"""The SDK entry points are ordinary keyword-only functions whose source signatures are the options table:
nothing assigns a ``__signature__``, each keyword has the table's type, the typed requests the calls build have
the same fields, and type checkers see the keywords (no stub file repeats them)."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import os
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest

import agentcompass
from agentcompass import EvaluationRequest, LaunchSettings, async_launch, async_run_evaluation, launch, run_evaluation
from agentcompass._config import options

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "agentcompass"


def _assigned_signatures() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[Any] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                targets = [node.target]
            elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "setattr" and len(node.args) > 1:
                arg = node.args[1]
                if isinstance(arg, ast.Constant) and arg.value == "__signature__":
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            for target in targets:
                if isinstance(target, ast.Attribute) and target.attr == "__signature__":
                    found.append(f"{path.relative_to(ROOT)}:{target.lineno}")
    return found


def test_nothing_in_the_package_assigns_a_signature():
    assert _assigned_signatures() == []


def test_the_scan_finds_an_assignment(tmp_path, monkeypatch):
    (tmp_path / "m.py").write_text("def f(): pass\nf.__signature__ = None\nsetattr(f, '__signature__', None)\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert _assigned_signatures() == ["m.py:2", "m.py:3"]


def _hints(obj: Any) -> dict[str, Any]:
    return typing.get_type_hints(obj, localns={"RunResult": agentcompass.RunResult})


def _table(entry: str, section: str | None = None) -> dict[str, Any]:
    rows = options.for_entry(entry)
    return {r.name: r.annotation_for(entry) | None for r in rows if section is None or r.section == section}


@pytest.mark.parametrize("fn", [run_evaluation, async_run_evaluation])
def test_run_evaluation_is_keyword_only_over_the_run_rows(fn):
    params = inspect.signature(fn).parameters
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is None for p in params.values())
    hints = _hints(fn)
    assert {name: hints[name] for name in params} == _table("run")
    assert list(params) == list(_table("run"))  # the table's order
    assert fn.__doc__ and "keyword" in fn.__doc__.lower()


def test_the_evaluation_request_has_the_same_fields():
    fields = [f.name for f in dataclasses.fields(EvaluationRequest)]
    hints = typing.get_type_hints(EvaluationRequest)
    assert {name: hints[name] for name in fields} == _table("run")


@pytest.mark.parametrize("fn", [launch, async_launch])
def test_launch_takes_the_orchestration_the_settings_object_and_the_launch_rows(fn):
    params = inspect.signature(fn).parameters
    names = list(params)
    assert names[:2] == ["orchestration", "settings"]
    assert params["orchestration"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert all(params[n].kind is inspect.Parameter.KEYWORD_ONLY for n in names[1:])
    hints = _hints(fn)
    assert hints["settings"] == LaunchSettings | None
    assert {n: hints[n] for n in names[2:]} == _table("launch")


def test_launch_settings_are_the_orchestration_wide_rows():
    fields = [f.name for f in dataclasses.fields(LaunchSettings)]
    hints = typing.get_type_hints(LaunchSettings)
    assert {name: hints[name] for name in fields} == _table("launch", "runtime")


def test_a_typed_request_checks_its_values_once_built():
    from agentcompass.errors import ArgumentError

    with pytest.raises(ArgumentError, match=r"EvaluationRequest\(\): task_concurrency='4'"):
        EvaluationRequest(task_concurrency="4")  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match=r"LaunchSettings\(\): timeout_seconds='1'"):
        LaunchSettings(timeout_seconds="1")  # type: ignore[arg-type]
    assert LaunchSettings(results_dir=Path("/x"), progress="none").given() == {"results_dir": "/x", "progress": "none"}


def test_no_stub_repeats_the_signatures():
    assert not list(PACKAGE.glob("*.pyi"))


def _mypy(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    snippet = tmp_path / "snippet.py"
    snippet.write_text(source)
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent"]
    cmd += ["--ignore-missing-imports", "--cache-dir", str(tmp_path / "cache"), str(snippet)]
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_mypy_sees_the_sdk_keywords(tmp_path):
    good = _mypy(
        tmp_path,
        "from agentcompass import LaunchSettings, RunResult, launch, run_evaluation\n\n"
        "result: RunResult = run_evaluation(benchmark='demo', task_concurrency=4, timeout_seconds=60)\n"
        "mean = result['metrics']['mean_reward']\n"
        "run_dir: str = result['paths']['run_dir']\n"
        "outcome = launch({'requests': [{'name': 'a'}]}, timeout_seconds=1.5)\n"
        "again = launch({'requests': [{'name': 'a'}]}, settings=LaunchSettings(task_concurrency=2))\n",
    )
    assert good.returncode == 0, good.stdout + good.stderr
    misspelt = _mypy(tmp_path, "from agentcompass import run_evaluation\n\nrun_evaluation(task_concurency=4)\n")
    assert misspelt.returncode == 1, misspelt.stdout
    assert 'Unexpected keyword argument "task_concurency"' in misspelt.stdout
    assert '"task_concurrency"' in misspelt.stdout  # mypy names the nearest keyword
    wrong = _mypy(tmp_path, "from agentcompass import run_evaluation\n\nrun_evaluation(task_concurrency='4')\n")
    assert wrong.returncode == 1 and "task_concurrency" in wrong.stdout, wrong.stdout
