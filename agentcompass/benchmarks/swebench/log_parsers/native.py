"""Log parsers of the C / C++, Go and Rust repositories: redis and valkey's runtest, jq, doctest's XML report,
micropython's run-tests, googletest, ``go test -v`` and ``cargo test``."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from .base import FAILED, PASSED, SKIPPED, match_lines

_REDIS = re.compile(r"^\[(ok|err|skip|ignore)\]:\s(.+?)(?:\s\((\d+\s*m?s)\))?$")
_REDIS_FILE = re.compile(r"\s+in\s+\S+$")  # "[err]: name in tests/unit/x.tcl": the file is not the name
_JQ = re.compile(r"^\s*(PASS|FAIL):\s(.+)$")
_MICROPYTHON = re.compile(r"^(pass|FAIL|skip)\s+(.+)$")
_GOOGLETEST = re.compile(r"^.*\[\s*(OK|FAILED)\s*\]\s(.*)\s\(.*\)$")
_GOTEST = re.compile(r"^--- (PASS|FAIL|SKIP): (.+) \((.+)\)$")
_CARGO = re.compile(r"^test\s+(\S+)\s+\.\.\.\s+(\w+)$")


def parse_log_redis(log: str) -> dict[str, str]:
    """``[ok]: name (12 ms)``, ``[err]: name in file``, ``[skip]`` / ``[ignore]``."""
    result: dict[str, str] = {}
    for line in log.split("\n"):
        m = _REDIS.match(line.strip())
        if not m:
            continue
        word, name = m.group(1), m.group(2)
        if word == "ok":
            result[name] = PASSED
        elif word == "err":
            result[_REDIS_FILE.sub("", name)] = FAILED
        else:
            result[name] = SKIPPED
    return result


def parse_log_jq(log: str) -> dict[str, str]:
    return match_lines(log, _JQ, {"PASS": PASSED, "FAIL": FAILED})


def _xml_report(log: str) -> str | None:
    """The ``<doctest ...>...</doctest>`` document in ``log`` (from its first start tag)."""
    start = log.find("<doctest")
    if start == -1:
        return None
    end = log.find("</doctest>", start) + len("</doctest>")
    return log[start:end]


def parse_log_doctest(log: str) -> dict[str, str]:
    """doctest's ``-r=xml`` report: ``TestCase > SubCase`` passes when every expression in it succeeded."""
    text = _xml_report(log)
    if text is None:
        return {}
    result: dict[str, str] = {}
    for case in ET.fromstring(text).findall(".//TestCase"):
        for sub in case.findall(".//SubCase"):
            ok = all(e.get("success") == "true" for e in sub.findall(".//Expression"))
            result[f"{case.get('name')} > {sub.get('name')}"] = PASSED if ok else FAILED
    return result


def parse_log_micropython_test(log: str) -> dict[str, str]:
    return match_lines(log, _MICROPYTHON, {"pass": PASSED, "FAIL": FAILED, "skip": SKIPPED})


def parse_log_googletest(log: str) -> dict[str, str]:
    """``[       OK ] Suite.Name (0 ms)`` / ``[  FAILED  ] Suite.Name (1 ms)``."""
    return match_lines(log, _GOOGLETEST, {"OK": PASSED, "FAILED": FAILED})


def parse_log_gotest(log: str) -> dict[str, str]:
    """``--- PASS: TestName (0.00s)``, FAIL, SKIP."""
    return match_lines(log, _GOTEST, {"PASS": PASSED, "FAIL": FAILED, "SKIP": SKIPPED})


def parse_log_cargo(log: str) -> dict[str, str]:
    """``test path::name ... ok`` / ``... FAILED`` (ignored tests are not reported)."""
    result: dict[str, str] = {}
    for line in log.split("\n"):
        m = _CARGO.match(line.strip())
        if m and m.group(2) in ("ok", "FAILED"):
            result[m.group(1)] = PASSED if m.group(2) == "ok" else FAILED
    return result
