"""Terminal-Bench 1's ``PytestParser`` (FORMATS.md C6): test results from pytest's ``-rA`` summary.

The text (a captured pane or a log) is split on the first ``=== short test summary info ===`` header; a missing
header is a parse error. Below it, every line ``STATUS path::name[ - message]`` whose STATUS is a pytest outcome
is one result. PASSED, SKIPPED and XFAIL count as passed; FAILED, ERROR and XPASS as failed. Terminal colour
codes are removed first. A summary with no result line is a parse error too: an empty result would otherwise
count as "every test passed".
"""

from __future__ import annotations

import re

from agentcompass.errors import VerifierError

PASSING = ("PASSED", "SKIPPED", "XFAIL")
FAILING = ("FAILED", "ERROR", "XPASS")
_HEADER_RE = re.compile(r"=+\s*short test summary info\s*=+", re.IGNORECASE)
_ANSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def _result_line(line: str) -> tuple[str, str] | None:
    parts = line.strip().split(maxsplit=1)
    if len(parts) != 2 or parts[0] not in PASSING + FAILING:
        return None
    status, test = parts
    if " - " in test:                      # FAILED path::name - AssertionError: ...
        test = test.split(" - ", 1)[0]
    return test.strip(), status


def parse_pytest_summary(text: str) -> dict[str, str]:
    """``{"path::name": STATUS}`` from pytest output; VerifierError when there is nothing to grade."""
    parts = _HEADER_RE.split(_ANSI_RE.sub("", text), maxsplit=1)
    if len(parts) < 2:
        raise VerifierError("parse error: no 'short test summary info' section in the test output "
                            "(run pytest with -rA)")
    results: dict[str, str] = {}
    for line in parts[1].splitlines():
        parsed = _result_line(line)
        if parsed:
            results[parsed[0]] = parsed[1]
    if not results:
        raise VerifierError("parse error: the 'short test summary info' section lists no test results")
    return results


def all_passed(results: dict[str, str]) -> bool:
    """True iff there is at least one result and every one of them passed."""
    return bool(results) and all(status in PASSING for status in results.values())
