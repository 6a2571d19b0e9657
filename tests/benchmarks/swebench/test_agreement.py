"""Agreement with SWE-bench's own harness (the ``swebench`` package, a test-only dependency).

The same logs are graded by both: canned logs of every parser, synthetic status maps covering each resolution
rule, and the real test outputs of the fixture predictions (gold, wrong, partial, non-applying) produced by
our eval script in a temporary checkout.
"""

from __future__ import annotations

import json

import pytest

from agentcompass.benchmarks.swebench import grading, log_parsers
from tests.benchmarks.swebench import canned_logs, fixture
from tests.benchmarks.swebench.conftest import skip_or_fail
from tests.benchmarks.swebench.test_grade_local import grade_local

try:
    import swebench  # noqa: F401
except ImportError:
    skip_or_fail("swebench==5.0.2 is not installed: pip install -e '.[agreement]'")


def _theirs():
    from swebench.harness import grading as sg
    from swebench.harness.log_parsers import PARSER_REGISTRY
    from swebench.types import TestSpec

    return sg, PARSER_REGISTRY, TestSpec


PARSER_CASES = [
    ("parse_log_pytest", canned_logs.PYTEST),
    ("parse_log_pytest_v2", canned_logs.PYTEST_V2),
    ("parse_log_pytest_v2", canned_logs.PYTEST),
    ("parse_log_pytest_options", canned_logs.PYTEST_OPTIONS),
    ("parse_log_django", canned_logs.DJANGO),
    ("parse_log_sympy", canned_logs.SYMPY),
    ("parse_log_seaborn", canned_logs.SEABORN),
    ("parse_log_matplotlib", canned_logs.PYTEST),
    ("parse_log_requests", canned_logs.PYTEST_OPTIONS),
    ("parse_log_astropy", canned_logs.PYTEST_V2),
]


@pytest.mark.parametrize("name,log", PARSER_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(PARSER_CASES)])
def test_parsers_agree(name, log):
    _, registry, _ = _theirs()
    ours = log_parsers.get_parser(name)(log)
    assert ours, "a canned log must parse to something"
    assert ours == registry[name](log, None)


def test_every_parser_name_of_the_spec_table_agrees_on_every_canned_log():
    """Each repository's parser (spec table) is the same function as 5.0.2's of that name, on every log."""
    from agentcompass.benchmarks.swebench.spec_table import REPOS

    _, registry, _ = _theirs()
    logs = [
        canned_logs.PYTEST,
        canned_logs.PYTEST_V2,
        canned_logs.PYTEST_OPTIONS,
        canned_logs.DJANGO,
        canned_logs.SYMPY,
        canned_logs.SEABORN,
    ]
    names = sorted({entry["log_parser"] for entry in REPOS.values()})
    assert len(names) == 18
    for name in names:
        for log in logs:
            assert log_parsers.get_parser(name)(log) == registry[name](log, None), name


STATUS_MAPS = [
    {"a": "PASSED", "b": "PASSED", "p": "PASSED"},
    {"a": "PASSED", "b": "FAILED", "p": "PASSED"},
    {"a": "PASSED", "p": "PASSED"},  # missing F2P test
    {"a": "SKIPPED", "b": "PASSED", "p": "SKIPPED"},  # SKIPPED: F2P failure, P2P maintained
    {"a": "XFAIL", "b": "PASSED", "p": "PASSED"},
    {"a": "ERROR", "b": "FAILED", "p": "PASSED"},
    {"a": "PASSED", "b": "PASSED", "p": "ERROR"},
    {"a": "PASSED", "b": "PASSED"},  # missing P2P test
    {"x[1 2]": "PASSED", "b": "PASSED", "p": "PASSED"},  # truncated id "x[1"
    {},
]


@pytest.mark.parametrize("eval_type", ["pass_and_fail", "fail_only"])
@pytest.mark.parametrize("status_map", STATUS_MAPS)
def test_resolution_rules_agree(status_map, eval_type):
    sg, _, _ = _theirs()
    from swebench.harness.constants import EvalType

    f2p = ["x[1", "b"] if "x[1 2]" in status_map else ["a", "b"]
    gold = {"FAIL_TO_PASS": f2p, "PASS_TO_PASS": ["p"]}
    theirs = sg.get_eval_tests_report(status_map, gold, eval_type=EvalType(eval_type))
    ours = grading.tests_report(status_map, gold["FAIL_TO_PASS"], gold["PASS_TO_PASS"], eval_type)
    assert ours == theirs
    assert grading.resolution_status(ours) == sg.get_resolution_status(theirs)


def _their_report(tmp_path, row, patch, log_text, parser="parse_log_pytest"):
    sg, _, test_spec_cls = _theirs()
    spec = test_spec_cls(
        instance_id=row["instance_id"],
        image="x",
        eval_script_list=[],
        repo=row["repo"],
        version=row["version"],
        FAIL_TO_PASS=json.loads(row["FAIL_TO_PASS"]),
        PASS_TO_PASS=json.loads(row["PASS_TO_PASS"]),
        log_parser=parser,
        eval_type="pass_and_fail",
    )
    path = tmp_path / "their_test_output.txt"
    path.write_text(log_text)
    pred = {"instance_id": row["instance_id"], "model_name_or_path": "m", "model_patch": patch}
    return sg.get_eval_report(spec, pred, str(path), include_tests_status=True)[row["instance_id"]]


@pytest.mark.parametrize("which", ["gold", "wrong", "half"])
def test_fixture_predictions_agree(tmp_path, calc, which):
    patch = {
        "gold": calc.row["patch"],
        "wrong": fixture.patch_for(calc.repo, fixture.WRONG_OPS),
        "half": fixture.patch_for(calc.repo, fixture.HALF_OPS),
    }[which]
    grade, adir = grade_local(tmp_path, calc, patch)
    ours = json.loads((adir / "report.json").read_text())[fixture.INSTANCE_ID]
    theirs = _their_report(tmp_path, calc.row, patch, (adir / "test_output.txt").read_text())
    assert ours == theirs  # every key, infra_failure included
    assert theirs["resolved"] is (which == "gold")
    status = grading.resolution_status(theirs["tests_status"])
    assert grade.details["status"] == status
    assert status == {"gold": "RESOLVED_FULL", "wrong": "RESOLVED_NO", "half": "RESOLVED_PARTIAL"}[which]


@pytest.mark.parametrize("mutate", ["sentinel", "no-end-marker", "fake-pass", "timeout", "oom", "no-module"])
def test_invalid_fixture_logs_agree(tmp_path, calc, mutate):
    _, adir = grade_local(tmp_path, calc, calc.row["patch"])
    log = (adir / "test_output.txt").read_text()
    log = {
        "sentinel": log + "\n>>>>> Tests Errored\n",
        "no-end-marker": log.replace(grading.END_TEST_OUTPUT, "end"),
        "fake-pass": log.replace(">>>>> Test Exit Code: 0", ">>>>> Test Exit Code: 2"),
        "timeout": log + "\n>>>>> Tests Timed Out\n",
        "oom": log.replace(grading.END_TEST_OUTPUT, "end") + "\nKilled\n",
        "no-module": log.replace(grading.END_TEST_OUTPUT, "ModuleNotFoundError: No module named 'x'\n"),
    }[mutate]
    theirs = _their_report(tmp_path, calc.row, calc.row["patch"], log)
    ours = grading.instance_report(
        fixture.INSTANCE_ID,
        calc.row["patch"],
        log,
        "parse_log_pytest",
        json.loads(calc.row["FAIL_TO_PASS"]),
        json.loads(calc.row["PASS_TO_PASS"]),
    )
    ours = ours[fixture.INSTANCE_ID]
    assert ours == theirs
    assert ours["resolved"] is False and ours["patch_successfully_applied"] is False
    if mutate in ("oom", "no-module"):
        assert ours["infra_failure_reason"] == {"oom": "out_of_memory", "no-module": "missing_module"}[mutate]


def test_run_report_matches_swebench_make_run_report(tmp_path, monkeypatch):
    """Our run report from attempt directories == swebench's from its own log layout, on the same outcomes and
    logs: every key and value, the infra / ambiguous failure tags included."""
    from swebench.harness import reporting

    from agentcompass.benchmarks.swebench import reports

    outcomes = {"r1": True, "r2": False, "r3": "error", "r4": "", "r5": None, "r6": False, "r7": "timeout", "r8": "oom"}
    logs = {
        "r6": ("collected 0 items\n", ""),
        "r7": ("x\n\nTimeout error: 1800 seconds exceeded.", ""),
        "r8": ("", "Error response from daemon: no such container\n"),
    }
    rows, preds = [], {}
    monkeypatch.chdir(tmp_path)
    for iid, outcome in outcomes.items():
        adir = tmp_path / "attempts" / iid
        adir.mkdir(parents=True)
        rows.append({"task_id": iid, "attempt_dir": str(adir)})
        if outcome is None:
            continue  # no prediction: incomplete
        patch = outcome if outcome == "" else "diff"
        pred = {"instance_id": iid, "model_name_or_path": "org/model", "model_patch": patch}
        preds[iid] = pred
        (adir / "prediction.json").write_text(json.dumps(pred))
        theirs_dir = tmp_path / "logs" / "run_evaluation" / "run-1" / "org__model" / iid
        theirs_dir.mkdir(parents=True)
        test_output, instance_log = logs.get(iid, ("", ""))
        for folder in (adir, theirs_dir):
            if test_output:
                (folder / "test_output.txt").write_text(test_output)
            if instance_log:
                (folder / "run_instance.log").write_text(instance_log)
            if isinstance(outcome, bool):
                (folder / "report.json").write_text(json.dumps({iid: {"resolved": outcome}}))
    paths = reports.write_run_outputs(tmp_path / "run", rows, "run-1", "x")
    ours = json.loads(open(paths["report"]).read())
    their_path = reporting.make_run_report(
        preds, [{"instance_id": i} for i in outcomes], "run-1", report_dir=str(tmp_path / "theirs")
    )
    theirs = json.loads(open(their_path).read())
    assert paths["report"].endswith("org__model.run-1.json") and their_path.name == "org__model.run-1.json"
    assert list(ours.items()) == list(theirs.items())
    assert ours["resolved_ids"] == ["r1"] and ours["error_ids"] == ["r3", "r7", "r8"]
    assert ours["empty_patch_ids"] == ["r4"] and ours["incomplete_ids"] == ["r5"]
    assert ours["infra_failure_ids"] == ["r8"] and ours["ambiguous_failure_ids"] == ["r6", "r7"]
    from swebench.harness.utils import get_predictions_from_file

    loaded = get_predictions_from_file(paths["predictions"], "unused", "test")
    assert {p["instance_id"]: p for p in loaded} == preds
