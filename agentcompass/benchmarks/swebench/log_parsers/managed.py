"""Log parsers of the Java, PHP and Ruby repositories: Maven (one ``-Dtest=`` run per test), Ant's JUnit,
Gradle with the harness's test logging, PHPUnit ``--testdox``, minitest, cucumber's progress format, test-unit,
RSpec's JSON report transformed to lines, and jekyll (per instance)."""

from __future__ import annotations

import re

from .base import FAILED, PASSED, SKIPPED, ParseContext, match_lines

_MAVEN_TEST = re.compile(r"^.*-Dtest=(\S+).*$")
_MAVEN_RESULT = re.compile(r"^.*BUILD (SUCCESS|FAILURE)$")
_MAVEN = {"SUCCESS": PASSED, "FAILURE": FAILED}
_ANT = re.compile(r"^\s*\[junit\]\s+\[(PASS|FAIL|ERR)\]\s+(.*)$")
_GRADLE_FULL = re.compile(r"^([^>].+)\s+(PASSED|FAILED)$")
_GRADLE_NAME = re.compile(r"^([^>]\S*\s+>\s+\S+)$")
_GRADLE_STATUS = re.compile(r"^(PASSED|FAILED)$")
_PHPUNIT_SUITE = re.compile(r"^(\w.+) \(.+\)$")
_PHPUNIT_TEST = re.compile(r"^\s*([✔✘↩])\s*(.*)$")
_PHPUNIT = {"✔": PASSED, "✘": FAILED, "↩": SKIPPED}
_MINITEST = re.compile(r"^(.+)\. .*=.*(\.|F|E).*$")
_CUCUMBER = re.compile(r"^(.*) \.+(\.|F)")
_RUBY_UNIT = re.compile(r"^\s*(?:test: )?(.+):\s+(\.|E\b|F\b|O\b)")
_RSPEC = re.compile(r"(.+) - (passed|failed)")
JEKYLL_MINITEST = ("9141", "8047", "8167")  # jekyll pull requests graded from minitest's output
JEKYLL_CUCUMBER = ("8761", "8771")  # ... and from cucumber's


def parse_log_maven(log: str) -> dict[str, str]:
    """Maven prints no passing tests: each test runs alone (``-Dtest=Name`` in the traced command) and its
    ``BUILD SUCCESS|FAILURE`` line is its result; results and commands are paired first come, first served."""
    result: dict[str, str] = {}
    pending: list[str] = []
    unmatched: list[str] = []
    for raw in log.split("\n"):
        line = raw.strip()
        if m := _MAVEN_TEST.match(line):
            pending.append(m.group(1))
        if m := _MAVEN_RESULT.match(line):
            if pending:
                result[pending.pop(0)] = _MAVEN[m.group(1)]
            else:
                unmatched.append(m.group(1))
    while pending and unmatched:
        result[pending.pop(0)] = _MAVEN[unmatched.pop(0)]
    return result


def parse_log_ant(log: str) -> dict[str, str]:
    return match_lines(log, _ANT, {"PASS": PASSED, "FAIL": FAILED, "ERR": FAILED})


def parse_log_gradle_custom(log: str) -> dict[str, str]:
    """``Class > method PASSED``; a name alone on its line takes the status on a later line of its own."""
    result: dict[str, str] = {}
    pending: str | None = None
    for raw in log.split("\n"):
        line = raw.strip()
        if m := _GRADLE_FULL.match(line):
            result[m.group(1)] = m.group(2)
            pending = None
        elif m := _GRADLE_NAME.match(line):
            pending = m.group(1)
        elif pending and (m := _GRADLE_STATUS.match(line)):
            result[pending] = m.group(1)
            pending = None
    return result


def parse_log_phpunit(log: str) -> dict[str, str]:
    """``--testdox``: a ``Suite (Class\\Name)`` line, then ``✔ test`` / ``✘ test`` / ``↩ test`` lines."""
    result: dict[str, str] = {}
    suite = None
    for line in log.split("\n"):
        if m := _PHPUNIT_SUITE.match(line):
            suite = m.group(1)
        elif m := _PHPUNIT_TEST.match(line):
            result[f"{suite} > {m.group(2)}"] = _PHPUNIT[m.group(1)]
    return result


def parse_log_minitest(log: str) -> dict[str, str]:
    return match_lines(log, _MINITEST, {".": PASSED, "F": FAILED, "E": FAILED}, name_first=True)


def parse_log_cucumber(log: str) -> dict[str, str]:
    return match_lines(log, _CUCUMBER, {".": PASSED, "F": FAILED}, name_first=True)


def parse_log_ruby_unit(log: str) -> dict[str, str]:
    return match_lines(log, _RUBY_UNIT, {".": PASSED, "E": FAILED, "F": FAILED, "O": SKIPPED}, name_first=True)


def parse_log_rspec_transformed_json(log: str) -> dict[str, str]:
    return match_lines(log, _RSPEC, {"passed": PASSED, "failed": FAILED}, name_first=True)


def parse_log_jekyll(log: str, ctx: ParseContext | None) -> dict[str, str]:
    """jekyll's instances use two runners: the pull-request number in the instance id says which."""
    instance_id = ctx.instance_id if ctx else ""
    number = instance_id.split("-")[1] if "-" in instance_id else ""
    if number in JEKYLL_MINITEST:
        return parse_log_minitest(log)
    if number in JEKYLL_CUCUMBER:
        return parse_log_cucumber(log)
    raise ValueError(f"parse_log_jekyll: unknown instance id {instance_id!r}")
