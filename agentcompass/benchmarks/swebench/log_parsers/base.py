"""What every log parser shares: the statuses, the instance a log belongs to, the suite-indent tracking."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

PASSED, FAILED, SKIPPED, ERROR, XFAIL = "PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL"
STATUSES = (FAILED, PASSED, SKIPPED, ERROR, XFAIL)

_ANSI = re.compile(r"\x1B(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])")


@dataclass(frozen=True)
class ParseContext:
    """The instance a log belongs to: a few runners' logs are read per instance id or version."""

    instance_id: str = ""
    version: str = ""


Parser = Callable[[str, "ParseContext | None"], dict[str, str]]


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip())


def nest(suite: list[tuple[str, int]], line: str) -> None:
    """An indented line that is not a test names a suite: it closes the suites at its indent or deeper."""
    indent = indent_of(line)
    while suite and suite[-1][1] >= indent:
        suite.pop()
    suite.append((line.strip(), indent))


def match_lines(
    log: str, pattern: re.Pattern[str], statuses: dict[str, str], name_first: bool = False
) -> dict[str, str]:
    """Each stripped line matching ``pattern`` (groups: status word, test name; or name, status word with
    ``name_first``) -> that test's status; status words missing from ``statuses`` are not results."""
    word, name = (2, 1) if name_first else (1, 2)
    result: dict[str, str] = {}
    for line in log.split("\n"):
        m = pattern.match(line.strip())
        if m and m.group(word) in statuses:
            result[m.group(name)] = statuses[m.group(word)]
    return result
