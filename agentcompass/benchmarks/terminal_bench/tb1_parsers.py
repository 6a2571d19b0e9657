"""The test-output parsers of Terminal-Bench 1 (``terminal-bench`` 0.2.18, ``parser_name`` in ``task.yaml``).

Each parser maps the test output to ``{test name: "passed" | "failed"}`` exactly as Terminal-Bench's own parser
of that name does (``tests/benchmarks/terminal_bench/test_tb1_parsers_agreement.py`` runs both on the same logs),
and raises :class:`VerifierError` where Terminal-Bench's raises (its ``PARSE_ERROR`` failure mode):

- ``pytest``: the text after the first ``=== short test summary info ===`` header (missing: a parse error); each
  line ``STATUS path::name`` is one result keyed by ``name`` (the part after the first ``::``), the trailing
  `` - message`` of a FAILED line dropped. PASSED, SKIPPED, XFAIL pass; FAILED, ERROR, XPASS fail; other lines
  are ignored.
- ``swebench`` / ``sweperf``: the block between ``SWEBench results starts here`` and ``... ends here`` (SWE-Perf:
  ``SWE-Perf results starts here`` / ``ends here``); a missing marker is a parse error. One result ``tests``,
  passed iff the block is ``PASSED``.
- ``mlebench``: the block between ``MLEBench results starts here`` and ``... ends here`` (missing markers: the
  whole text); one result ``tests``, passed iff the block is ``ALL TESTS PASSED``.
- ``swelancer``: one result ``swelancer_task``, passed iff the text contains ``swe lancer success``, else (no
  ``swe lancer failure``) when it mentions both ``user_tool`` and ``completed`` (case-insensitive).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agentcompass.errors import VerifierError

PASSED, FAILED = "passed", "failed"
Parser = Callable[[str], dict[str, str]]

# pytest outcome words as Terminal-Bench 1 knows them ("UNKNOWN" is one of its names too, never a result)
_PYTEST_STATUS = {
    "PASSED": PASSED,
    "SKIPPED": PASSED,
    "XFAIL": PASSED,
    "FAILED": FAILED,
    "XPASS": FAILED,
    "ERROR": FAILED,
    "UNKNOWN": None,
}
_SUMMARY_RE = re.compile(r"=+\s*short test summary info\s*=+", re.IGNORECASE)
_FAILED_DELIMITER = " - "


def _pytest_line(line: str) -> tuple[str, str] | None:
    if line.startswith("FAILED"):  # FAILED path::name - AssertionError: ...: drop the last " - " part
        parts = line.split(_FAILED_DELIMITER)
        if len(parts) > 1:
            line = _FAILED_DELIMITER.join(parts[:-1])
    parts = line.split(maxsplit=1)
    if len(parts) <= 1:
        return None
    status = _PYTEST_STATUS.get(parts[0].strip().strip(":"))
    name = parts[1].strip().split("::", maxsplit=1)[-1]
    if status is None or not name:
        return None
    return name, status


def parse_pytest(content: str) -> dict[str, str]:
    parts = _SUMMARY_RE.split(content, maxsplit=1)
    if len(parts) < 2:
        raise VerifierError(
            "parse error: no 'short test summary info' section in the test output (run pytest with -rA)"
        )
    results: dict[str, str] = {}
    for line in parts[1].splitlines():
        parsed = _pytest_line(line)
        if parsed is not None:
            results[parsed[0]] = parsed[1]
    return results


def _between(content: str, start: str, end: str) -> str:
    return content.split(start, 1)[-1].rsplit(end, 1)[0].strip()


def _marked_block(start: str, end: str, what: str) -> Parser:
    def parse(content: str) -> dict[str, str]:
        if start not in content or end not in content:
            raise VerifierError(f"parse error: no {what} results between the markers {start!r} and {end!r}")
        return {"tests": PASSED if _between(content, start, end) == "PASSED" else FAILED}

    return parse


def parse_mlebench(content: str) -> dict[str, str]:
    block = _between(content, "MLEBench results starts here", "MLEBench results ends here")
    return {"tests": PASSED if block == "ALL TESTS PASSED" else FAILED}


def parse_swelancer(content: str) -> dict[str, str]:
    text = content.lower()
    if "swe lancer success" in text:
        success = True
    elif "swe lancer failure" in text:
        success = False
    else:
        success = "user_tool" in text and "completed" in text
    return {"swelancer_task": PASSED if success else FAILED}


PARSERS: dict[str, Parser] = {
    "pytest": parse_pytest,
    "swebench": _marked_block("SWEBench results starts here", "SWEBench results ends here", "SWEBench"),
    "swelancer": parse_swelancer,
    "mlebench": parse_mlebench,
    "sweperf": _marked_block("SWE-Perf results starts here", "SWE-Perf results ends here", "SWE-Perf"),
}


def get_parser(name: str) -> Parser:
    """The parser called ``name``; ValueError listing the valid names otherwise."""
    try:
        return PARSERS[name]
    except KeyError:
        raise ValueError(f"unknown parser_name {name!r}; valid: {', '.join(PARSERS)}") from None


def all_passed(results: dict[str, str]) -> bool:
    """Terminal-Bench 1's resolution rule (every result passed), except that an empty result is not a pass."""
    return bool(results) and all(status == PASSED for status in results.values())
