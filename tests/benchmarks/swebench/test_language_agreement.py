"""Every non-Python log parser gives swebench 5.0.2's status map on logs in its runner's format, and the same
``report.json`` (``get_eval_report``) on a test output holding that log between the markers."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from agentcompass.benchmarks.swebench import grading
from agentcompass.benchmarks.swebench.log_parsers import PARSER_REGISTRY, ParseContext
from agentcompass.benchmarks.swebench.spec_table_languages import table
from tests.benchmarks.swebench.conftest import skip_or_fail
from tests.benchmarks.swebench.language_logs import LOGS

try:
    from swebench.harness import grading as their_grading
    from swebench.harness.log_parsers import PARSER_REGISTRY as THEIRS
    from swebench.types import TestSpec as RefSpec
except ImportError:
    skip_or_fail("swebench==5.0.2 is not installed: pip install -e '.[agreement]'")

PYTHON_NAMES = {n for n in PARSER_REGISTRY if not n.startswith("parse_log_")} | {
    n for n in THEIRS if THEIRS[n].__module__.endswith(".python")
}
IDS = [f"{name}-{i}" for i, (name, *_rest) in enumerate(LOGS)]


@pytest.mark.parametrize("name,instance_id,version,log", LOGS, ids=IDS)
def test_status_maps_agree(name, instance_id, version, log):
    ours = PARSER_REGISTRY[name](log, ParseContext(instance_id, version))
    theirs = THEIRS[name](log, SimpleNamespace(instance_id=instance_id, version=version))
    assert ours == theirs
    assert len(ours) >= 3, ours


def test_every_non_python_parser_has_logs_and_every_status_its_runner_prints():
    covered = {name for name, *_ in LOGS}
    assert covered == set(THEIRS) - PYTHON_NAMES
    statuses: dict[str, set[str]] = {}
    for name, instance_id, version, log in LOGS:
        found = PARSER_REGISTRY[name](log, ParseContext(instance_id, version)).values()
        statuses.setdefault(name, set()).update(found)
    fail_only = {"parse_log_chart_js", "parse_log_marked", "parse_log_p5js", "parse_log_eslint"}
    fail_only |= {"parse_log_bpmn_js", "parse_log_openlayers"}  # these runners' logs list failures only
    for name, found in statuses.items():
        assert "FAILED" in found, name
        assert "PASSED" in found or name in fail_only, name
    with_skips = {"parse_log_redis", "parse_log_micropython_test", "parse_log_gotest", "parse_log_phpunit"}
    with_skips |= {"parse_log_ruby_unit", "parse_log_jest", "parse_log_vitest"}
    assert all("SKIPPED" in statuses[n] for n in with_skips)
    print(f"log parsers: {len(statuses)} non-Python parsers agree on {len(LOGS)} synthesised logs")


def test_the_tables_name_only_parsers_we_have():
    assert {entry["log_parser"] for entry in table().values()} <= set(PARSER_REGISTRY)


def _test_output(log: str, exit_code: int) -> str:
    return (
        f"+ cd /testbed\n: '{grading.START_TEST_OUTPUT}'\n{log}\n"
        f": '{grading.END_TEST_OUTPUT}'\n{grading.TEST_EXIT_CODE}: {exit_code}\n"
    )


@pytest.mark.parametrize("name,instance_id,version,log", LOGS, ids=IDS)
def test_reports_agree(tmp_path, name, instance_id, version, log):
    status_map = PARSER_REGISTRY[name](log, ParseContext(instance_id, version))
    tests = sorted(status_map)
    f2p, p2p = tests[: len(tests) // 2] + ["missing test"], tests[len(tests) // 2 :]
    exit_code = 1 if "FAILED" in status_map.values() else 0
    text = _test_output(log, exit_code)
    path = tmp_path / "test_output.txt"
    path.write_text(text)
    for f2p_now in (f2p, [t for t in tests if status_map[t] == "PASSED"][:2]):
        spec = RefSpec(instance_id, "x", [], "r/r", version, f2p_now, p2p, log_parser=name, eval_type="pass_and_fail")
        pred = {"instance_id": instance_id, "model_name_or_path": "m", "model_patch": "diff"}
        theirs = their_grading.get_eval_report(spec, pred, str(path), include_tests_status=True)
        ours = grading.instance_report(instance_id, "diff", text, name, f2p_now, p2p, version=version)
        assert json.dumps(ours, sort_keys=False) == json.dumps(theirs, sort_keys=False)
