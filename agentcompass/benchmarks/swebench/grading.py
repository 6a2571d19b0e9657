"""SWE-bench grading rules: the eval script, log validity, FAIL_TO_PASS / PASS_TO_PASS resolution, report.json.

Pure functions (no environment access); :mod:`.runner` drives them against an environment.
"""

from __future__ import annotations

import re

from . import eval_scripts
from .infra_failure import TIER_ENVIRONMENT, classify_text
from .log_parsers import ERROR, FAILED, PASSED, SKIPPED, XFAIL, ParseContext, get_parser
from .patchset import modified_files
from .shapes import InstanceReport, SweBenchInstance, TestsPart
from .specs import InstanceSpec

APPLY_PATCH_FAIL = ">>>>> Patch Apply Failed"
APPLY_PATCH_PASS = ">>>>> Applied Patch"
RESET_FAILED = ">>>>> Reset Failed"
TESTS_ERROR = ">>>>> Tests Errored"
TESTS_TIMEOUT = ">>>>> Tests Timed Out"
START_TEST_OUTPUT = ">>>>> Start Test Output"
END_TEST_OUTPUT = ">>>>> End Test Output"
TEST_EXIT_CODE = ">>>>> Test Exit Code"
TEST_EXIT_CODE_VAR = "SWEBENCH_TEST_EXIT_CODE"
SENTINELS = (APPLY_PATCH_FAIL, RESET_FAILED, TESTS_ERROR, TESTS_TIMEOUT)

RESOLVED_FULL, RESOLVED_PARTIAL, RESOLVED_NO = "RESOLVED_FULL", "RESOLVED_PARTIAL", "RESOLVED_NO"
FAIL_TO_PASS, PASS_TO_PASS, FAIL_TO_FAIL, PASS_TO_FAIL = "FAIL_TO_PASS", "PASS_TO_PASS", "FAIL_TO_FAIL", "PASS_TO_FAIL"

# Model-patch application, tried in order until one exits 0 (the tree is cleaned between tries).
APPLY_COMMANDS = (
    "git apply --verbose",
    "git apply --verbose --3way",
    "git apply --verbose --reject",
    "patch --batch --forward --fuzz=5 -p1 -i",
)
CLEAN_TREE = "git checkout -- . ; git clean -fd"
ALREADY_APPLIED = "git apply --check --reverse"

# Evidence that a runner executed although nothing was parsed (non-zero counts only).
_SUITE_RAN = re.compile(
    r"Executed [1-9]\d* of \d+|TOTAL: [1-9]\d* (?:SUCCESS|FAILED)|[1-9]\d* passing|Tests:\s+[1-9]\d*"
    r"|Test Suites:\s+(?:\d+ \w+, )*[1-9]\d* total|^# tests [1-9]\d*|[1-9]\d* specs?, \d+ failures?|': ok$",
    re.M,
)
_EXIT_CODE = re.compile(rf"{re.escape(TEST_EXIT_CODE)}:\s*(-?\d+)")
REPO_DIRECTORY = "/testbed"
CONDA_ENV = "testbed"
HEREDOC_DELIMITER = "EOF_114329324912"


# --------------------------------------------------------------------------- eval script


def official_eval_script(row: SweBenchInstance, spec: InstanceSpec, repo_directory: str = REPO_DIRECTORY) -> str:
    """The eval script of a classic row, as the official harness builds it. Python: conda env, preparation
    commands, a record of the tree, the install step, test-file reset, ``test_patch`` from a heredoc, the test
    command between the markers, reset again; ``set -uxo pipefail`` without ``-e``. Other languages:
    :mod:`.eval_scripts`."""
    if spec.language != "py":
        return script_text(
            eval_scripts.eval_script_lines(row, spec.test_cmd, spec.build, spec.language, repo_directory)
        )
    base, test_patch = row["base_commit"], row["test_patch"]
    reset = f"git checkout {base} {' '.join(modified_files(test_patch))}"
    activate = ["source /opt/miniconda3/bin/activate", f"conda activate {CONDA_ENV}"]
    lines = [
        *activate,
        f"cd {repo_directory}",
        *spec.eval_commands,
        f"git config --global --add safe.directory {repo_directory}",
        f"cd {repo_directory}",
        "git status",
        "git show",
        f"git -c core.fileMode=false diff {base}",
        *activate,
    ]
    if spec.install:
        lines.append(spec.install)
    lines += [
        reset,
        f"git apply -v - <<'{HEREDOC_DELIMITER}'\n{test_patch}\n{HEREDOC_DELIMITER}",
        f": '{START_TEST_OUTPUT}'",
        spec.test_cmd,
        f": '{END_TEST_OUTPUT}'",
        reset,
    ]
    return script_text(lines)


def script_text(lines: list[str]) -> str:
    return "\n".join(["#!/bin/bash", "set -uxo pipefail", *lines]) + "\n"


def parse_eval_script(script: str) -> list[str]:
    """A script's commands without the shebang and the ``set`` line (5.x reads dataset scripts this way)."""
    return [ln for ln in script.strip().split("\n") if ln not in ("#!/bin/bash", "set -uxo pipefail")]


def record_exit_code(lines: list[str]) -> list[str]:
    """Capture the test command's status right before the end marker and echo it after the marker (5.x)."""
    for i, line in enumerate(lines):
        if END_TEST_OUTPUT in line:
            return [
                *lines[:i],
                f"{TEST_EXIT_CODE_VAR}=$?",
                line,
                f'echo "{TEST_EXIT_CODE}: ${TEST_EXIT_CODE_VAR}"',
                *lines[i + 1 :],
            ]
    return lines


def make_eval_script(row: SweBenchInstance, spec: InstanceSpec, repo_directory: str = REPO_DIRECTORY) -> str:
    """``/eval.sh`` as swebench 5.x runs it: the row's own ``eval_script`` when it has one, else the official
    classic script, with the test command's exit status recorded after the end marker."""
    script = spec.eval_script or official_eval_script(row, spec, repo_directory)
    return script_text(record_exit_code(parse_eval_script(script)))


# --------------------------------------------------------------------------- log -> status map


def parse_exit_code(log: str) -> int | None:
    match = _EXIT_CODE.search(log)
    return int(match.group(1)) if match else None


def parse_test_log(log: str, parser_name: str, ctx: ParseContext | None = None) -> tuple[dict[str, str], bool]:
    """(status map, valid). Invalid: a sentinel, a missing marker, nothing parsed and no sign the suite
    ran, or a non-zero test exit code while no test is FAILED or ERROR (fake PASSED lines)."""
    if any(s in log for s in SENTINELS) or START_TEST_OUTPUT not in log or END_TEST_OUTPUT not in log:
        return {}, False
    parser = get_parser(parser_name)
    status_map = parser(log.split(START_TEST_OUTPUT)[1].split(END_TEST_OUTPUT)[0], ctx)
    if not status_map:
        status_map = parser(log, ctx)  # some runners print results outside the markers
    if not status_map and not _SUITE_RAN.search(log):
        return {}, False
    code = parse_exit_code(log)
    if code not in (None, 0) and status_map and not any(s in (FAILED, ERROR) for s in status_map.values()):
        return {}, False
    return status_map, True


# --------------------------------------------------------------------------- resolution


def _lookup(test: str, status_map: dict[str, str]) -> str | None:
    """The key of ``test``; an id truncated inside ``[...]`` matches by prefix when candidates agree."""
    if test in status_map:
        return test
    if test.count("[") > test.count("]"):
        keys = [k for k in status_map if k.startswith(test)]
        if keys and len({status_map[k] in (PASSED, XFAIL) for k in keys}) == 1:
            return keys[0]
    return None


def case_passed(test: str, status_map: dict[str, str]) -> bool:
    key = _lookup(test, status_map)
    return key is not None and status_map[key] in (PASSED, XFAIL)


def case_maintained(test: str, status_map: dict[str, str]) -> bool:
    """PASS_TO_PASS: a skipped test is not a regression."""
    key = _lookup(test, status_map)
    return case_passed(test, status_map) or (key is not None and status_map[key] == SKIPPED)


def case_failed(test: str, status_map: dict[str, str]) -> bool:
    """Missing, FAILED, ERROR or SKIPPED (a skipped FAIL_TO_PASS test is no resolution)."""
    key = _lookup(test, status_map)
    return key is None or status_map[key] in (FAILED, ERROR, SKIPPED)


def _split(tests: list[str], status_map: dict[str, str], eval_type: str, p2p: bool) -> TestsPart:
    success: list[str] = []
    failure: list[str] = []
    for test in tests:
        if eval_type == "fail_only":
            (failure if status_map.get(test) == FAILED else success).append(test)
        elif (case_maintained if p2p else case_passed)(test, status_map):
            success.append(test)
        elif case_failed(test, status_map):
            failure.append(test)
    return {"success": success, "failure": failure}


def tests_report(
    status_map: dict[str, str], f2p: list[str], p2p: list[str], eval_type: str = "pass_and_fail"
) -> dict[str, TestsPart]:
    """``tests_status`` of report.json: success / failure lists for the four categories."""
    return {
        FAIL_TO_PASS: _split(f2p, status_map, eval_type, p2p=False),
        PASS_TO_PASS: _split(p2p, status_map, eval_type, p2p=True),
        FAIL_TO_FAIL: {"success": [], "failure": []},
        PASS_TO_FAIL: {"success": [], "failure": []},
    }


def _ratio(part: TestsPart) -> float:
    total = len(part["success"]) + len(part["failure"])
    return 1.0 if total == 0 else len(part["success"]) / total


def resolution_status(report: dict[str, TestsPart]) -> str:
    """RESOLVED_FULL iff both ratios are 1; PARTIAL iff 0 < f2p < 1 and p2p == 1; else RESOLVED_NO."""
    f2p, p2p = _ratio(report[FAIL_TO_PASS]), _ratio(report[PASS_TO_PASS])
    if f2p == 1 and p2p == 1:
        return RESOLVED_FULL
    if 0 < f2p < 1 and p2p == 1:
        return RESOLVED_PARTIAL
    return RESOLVED_NO


def instance_report(
    instance_id: str,
    patch: str | None,
    log: str,
    parser_name: str,
    f2p: list[str],
    p2p: list[str],
    eval_type: str = "pass_and_fail",
    version: str = "",
) -> dict[str, InstanceReport]:
    """report.json content for the test output ``log`` (as swebench 5.x writes it); an invalid log leaves the
    instance unresolved, tagged ``infra_failure`` / ``infra_failure_reason`` when it looks like a broken
    environment."""
    entry: InstanceReport = {
        "patch_is_None": False,
        "patch_exists": False,
        "patch_successfully_applied": False,
        "resolved": False,
        "infra_failure": False,
    }
    if patch is None:
        entry["patch_is_None"] = True
        return {instance_id: entry}
    entry["patch_exists"] = True
    status_map, valid = parse_test_log(log, parser_name, ParseContext(instance_id, str(version)))
    if not valid:
        tag = classify_text(log)
        if tag:
            entry["infra_failure"] = tag[1] == TIER_ENVIRONMENT
            entry["infra_failure_reason"] = tag[0]
        return {instance_id: entry}
    entry["patch_successfully_applied"] = True
    report = tests_report(status_map, f2p, p2p, eval_type)
    entry["resolved"] = resolution_status(report) == RESOLVED_FULL
    entry["tests_status"] = report
    return {instance_id: entry}
