"""Canned test outputs for every Terminal-Bench 1 parser, written for these tests, with the results expected.

Each case: (parser name, case id, text, expected results or ``ERROR`` when the parser must reject the text).
``test_tb1_parsers.py`` checks our parsers against the expectations; ``test_tb1_parsers_agreement.py`` runs
Terminal-Bench 0.2.18's own parsers on the same texts and compares.
"""

from __future__ import annotations

ERROR = "error"

PYTEST_PANE = """\
root@5f2c:/app# bash /tests/run-tests.sh
============================= test session starts ==============================
collected 7 items

../tests/test_outputs.py .F.sxXE                                         [100%]

=========================== short test summary info ============================
PASSED ../tests/test_outputs.py::test_file_exists
PASSED ../tests/test_outputs.py::TestGroup::test_method[a - b]
SKIPPED [1] ../tests/test_outputs.py:20: not on this platform
XFAIL ../tests/test_outputs.py::test_known_bug - reason: known bug
XPASS ../tests/test_outputs.py::test_lucky
FAILED ../tests/test_outputs.py::test_content - AssertionError: assert 'a - b' == 'c'
ERROR ../tests/test_outputs.py::test_setup - fixture 'db' not found
=============== 1 failed, 2 passed, 1 skipped, 1 xfailed, 1 xpassed, 1 error in 0.05s ===============
root@5f2c:/app#
"""

PYTEST_ODD_LINES = """\
== SHORT TEST SUMMARY INFO ==
  PASSED tests/t.py::test_indented
PASSED: tests/t.py::test_colon
UNKNOWN tests/t.py::test_unknown
passed tests/t.py::test_lowercase
FAILED tests/t.py::test_no_message
FAILED tests/t.py::
PASSED
ERROR tests/t.py - ModuleNotFoundError: No module named 'x'
=== short test summary info ===
PASSED tests/t.py::test_after_second_header
"""

PYTEST_ALL_PASS = """\
============================= test session starts ==============================
collected 2 items

/tests/test_outputs.py ..                                                [100%]

=========================== short test summary info ============================
PASSED /tests/test_outputs.py::test_a
PASSED /tests/test_outputs.py::test_b
============================== 2 passed in 0.01s ===============================
"""

SWEBENCH_PASS = """\
+ python -m pytest tests/test_x.py
...
SWEBench results starts here
PASSED
SWEBench results ends here
"""

SWEBENCH_FAIL_TRACED = """\
+ echo 'SWEBench results starts here'
SWEBench results starts here
+ echo FAILED
FAILED
+ echo 'SWEBench results ends here'
SWEBench results ends here
"""

SWEBENCH_NESTED = """\
SWEBench results starts here
  PASSED
SWEBench results ends here
SWEBench results starts here
FAILED
SWEBench results ends here
"""

SWEPERF_PASS = "setup done\nSWE-Perf results starts here\n\nPASSED\n\nSWE-Perf results ends here\n"

MLEBENCH_PASS = "grading...\nMLEBench results starts here\nALL TESTS PASSED\nMLEBench results ends here\n"

CASES: list[tuple[str, str, str, object]] = [
    (
        "pytest",
        "pane",
        PYTEST_PANE,
        {
            "test_file_exists": "passed",
            "TestGroup::test_method[a - b]": "passed",
            "[1] ../tests/test_outputs.py:20: not on this platform": "passed",
            "test_known_bug - reason: known bug": "passed",
            "test_lucky": "failed",
            "test_content - AssertionError: assert 'a": "failed",
            "test_setup - fixture 'db' not found": "failed",
        },
    ),
    (
        "pytest",
        "odd-lines",
        PYTEST_ODD_LINES,
        {
            "test_indented": "passed",
            "test_colon": "passed",
            "test_no_message": "failed",
            "tests/t.py - ModuleNotFoundError: No module named 'x'": "failed",
            "test_after_second_header": "passed",
        },
    ),
    ("pytest", "all-pass", PYTEST_ALL_PASS, {"test_a": "passed", "test_b": "passed"}),
    ("pytest", "no-header", "collected 2 items\n\n2 passed in 0.01s\n", ERROR),
    ("pytest", "empty-summary", "=== short test summary info ===\n=== no tests ran ===\n", {}),
    ("swebench", "pass", SWEBENCH_PASS, {"tests": "passed"}),
    ("swebench", "fail-traced", SWEBENCH_FAIL_TRACED, {"tests": "failed"}),
    ("swebench", "nested", SWEBENCH_NESTED, {"tests": "failed"}),
    ("swebench", "no-end-marker", "SWEBench results starts here\nPASSED\n", ERROR),
    ("swebench", "no-markers", "fatal: could not read from remote repository\n", ERROR),
    ("sweperf", "pass", SWEPERF_PASS, {"tests": "passed"}),
    ("sweperf", "fail", "SWE-Perf results starts here\nslower\nSWE-Perf results ends here\n", {"tests": "failed"}),
    ("sweperf", "swebench-markers", SWEBENCH_PASS, ERROR),
    ("mlebench", "pass", MLEBENCH_PASS, {"tests": "passed"}),
    (
        "mlebench",
        "fail",
        "MLEBench results starts here\n3 of 4 passed\nMLEBench results ends here\n",
        {"tests": "failed"},
    ),
    ("mlebench", "no-markers", "  ALL TESTS PASSED\n", {"tests": "passed"}),
    ("swelancer", "success", "running user_tool\nSWE Lancer SUCCESS\n", {"swelancer_task": "passed"}),
    ("swelancer", "failure-wins", "User_Tool Completed\nswe lancer failure\n", {"swelancer_task": "failed"}),
    ("swelancer", "user-tool", "user_tool finished\nall steps completed\n", {"swelancer_task": "passed"}),
    ("swelancer", "nothing", "tests did not run\n", {"swelancer_task": "failed"}),
]
