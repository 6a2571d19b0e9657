"""Log parsers of the JavaScript / TypeScript repositories (SWE-bench Multilingual and Multimodal): Jest
(verbose and JSON-lines), Vitest, Karma, TAP, Jest's per-file PASS / FAIL lines, wp-calypso, Chart.js, marked,
p5.js and immutable-js (per instance). More runners in :mod:`.javascript_suites`."""

from __future__ import annotations

import re

from .base import FAILED, PASSED, SKIPPED, ParseContext, indent_of, match_lines, nest, strip_ansi

_JEST = re.compile(r"^\s*(✓|✕|○)\s(.+?)(?:\s\((\d+\s*m?s)\))?$")
_JEST_JSON = re.compile(r"^\[(PASSED|FAILED)\]\s(.+)$")
_VITEST = re.compile(r"^\s*(✓|×|↓)\s(.+?)(?:\s(\d+\s*m?s?|\[skipped\]))?$")
_KARMA = re.compile(r"^(\s*)?([✔✖])?\s(.*)$")
_TAP = re.compile(r"^(ok|not ok) (\d+) (.+)$")
_FILE_LINES = tuple(  # "PASS path (1.2 s)" lines: the first form that matches gives the name
    (re.compile(rf"^{word}\s(.*){timing}"), status)
    for word, status in (("PASS", PASSED), ("FAIL", FAILED))
    for timing in (r"\s\([\d\.]+ms\)", r"\s\([\d\.]+\ss\)", r"\s\([\d\.]+s\)", "")
)
_CHART_JS = re.compile(r"Chrome\s[\d\.]+[^\S\r\n]\(.+?\)[^\S\r\n](.*)FAILED$", re.MULTILINE)
_MARKED = re.compile(r"^\d+\)\s(.*)")
_TIMED = re.compile(r"\(\d+ms\)")
_P5_FAIL = re.compile(r"^\s*(\d+)\)(.{0,1000}?):", re.MULTILINE | re.DOTALL)
_XML_BLOCK = re.compile(r"<(\w+)>[\s\S]*?<\/\1>", re.MULTILINE)
IMMUTABLE_JEST, IMMUTABLE_JEST_JSON = ("2006",), ("2005",)  # immutable-js pull requests, by runner output


def parse_log_jest(log: str) -> dict[str, str]:
    """Jest ``--verbose``: ``✓ name (5 ms)``, ``✕ name``, ``○ skipped name``."""
    result: dict[str, str] = {}
    for line in log.split("\n"):
        m = _JEST.match(line.strip())
        if m:
            result[m.group(2).strip()] = {"✓": PASSED, "✕": FAILED, "○": SKIPPED}[m.group(1)]
    return result


def parse_log_jest_json(log: str) -> dict[str, str]:
    """Jest ``--json`` transformed to ``[PASSED] full name`` lines."""
    return match_lines(log, _JEST_JSON, {PASSED: PASSED, FAILED: FAILED})


def parse_log_vitest(log: str) -> dict[str, str]:
    """Vitest ``--reporter=verbose``: ``✓ name 3ms``, ``× name``, ``↓ name [skipped]``."""
    return match_lines(log, _VITEST, {"✓": PASSED, "×": FAILED, "↓": SKIPPED})


def parse_log_karma(log: str) -> dict[str, str]:
    """Karma's spec reporter after ``Starting browser``, up to ``SUMMARY:``: indented suite lines, then
    ``✔ name`` / ``✖ name``; tests are named ``suite > ... > name``."""
    result: dict[str, str] = {}
    indent, suite, started = -1, [], False
    for line in log.split("\n"):
        if line.startswith("SUMMARY:"):
            return result
        if "Starting browser" in line:
            started = True
            continue
        m = _KARMA.match(line) if started else None
        if not m:
            continue
        lead, status, name = m.groups()
        if lead and not status:
            if len(lead) > indent:
                indent = len(lead)
                suite.append(name)
            elif len(lead) < indent:
                indent = len(lead)
                suite.pop()
                continue
        if status:
            result[" > ".join([*suite, name])] = PASSED if status == "✔" else FAILED
    return result


def parse_log_tap(log: str) -> dict[str, str]:
    """TAP: ``ok 1 name`` / ``not ok 2 name``."""
    result: dict[str, str] = {}
    for line in log.split("\n"):
        m = _TAP.match(line.strip())
        if m:
            result[m.group(3)] = PASSED if m.group(1) == "ok" else FAILED
    return result


def parse_log_react_pdf(log: str) -> dict[str, str]:
    """Jest's per-file lines: ``PASS path (1.2 s)`` / ``FAIL path``; the name without its timing."""
    result: dict[str, str] = {}
    for line in log.split("\n"):
        for pattern, status in _FILE_LINES:
            if m := pattern.match(line):
                result[m.group(1)] = status
                break
    return result


parse_log_carbon = parse_log_react_pdf


def _calypso_name(suite: list[tuple[str, int]], line: str, mark: str) -> str:
    pattern = rf"^\s+{mark}\s(.*)\(\d+ms\)$" if _TIMED.search(line) else rf"^\s+{mark}\s(.*)"
    m = re.match(pattern, line)
    if m is None:
        raise ValueError(f"parse_log_calypso: a {mark} line without its indent: {line!r}")
    return " - ".join([" - ".join(name for name, _ in suite), m.group(1)]).strip()


def parse_log_calypso(log: str) -> dict[str, str]:
    """wp-calypso's Jest runs (each after `` ./node_modules/.bin/jest ``): indented suites, ``✓`` / ``✕``
    tests named ``suite - ... - name``; a run's listing ends at ``Test Suites`` or its first failure detail."""
    result: dict[str, str] = {}
    suite: list[tuple[str, int]] = []
    for run in log.split(" ./node_modules/.bin/jest ")[1:]:
        for line in run.split("\n"):
            if line.startswith(("Test Suites", "  ● ")):
                break
            if line.strip().startswith("✓"):
                result[_calypso_name(suite, line, "✓")] = PASSED
            elif line.strip().startswith("✕"):
                result[_calypso_name(suite, line, "✕")] = FAILED
            elif indent_of(line) > 0:
                nest(suite, line)
    return result


def parse_log_chart_js(log: str) -> dict[str, str]:
    """Karma's ``Chrome 1.2 (Linux) suite name FAILED`` lines (only failures are reported)."""
    return {name: FAILED for name in _CHART_JS.findall(strip_ansi(log))}


def parse_log_marked(log: str) -> dict[str, str]:
    """marked: the numbered failures ``1) name``."""
    result: dict[str, str] = {}
    for line in log.split("\n"):
        if m := _MARKED.search(line):
            result[m.group(1).strip()] = FAILED
    return result


def _without_json(text: str) -> str:
    """Lines outside JSON objects and lists printed by the tests (multi-line blocks and one-liners)."""
    kept: list[str] = []
    in_object = in_list = False
    for line in text.split("\n"):
        bare = line.rstrip()
        if bare.endswith("{"):
            in_object = True
        elif bare.endswith("["):
            in_list = True
        elif bare == "}" and in_object:
            in_object = False
        elif bare == "]" and in_list:
            in_list = False
        elif in_object or in_list:
            pass
        elif not ((bare.startswith("{") and bare.endswith("}")) or (bare.startswith("[") and bare.endswith("]"))):
            kept.append(line)
    return "\n".join(kept)


def _without_xml(text: str) -> str:
    """``<tag>...</tag>`` blocks removed, innermost-first; opening tags of unclosed nested blocks are kept."""
    while m := _XML_BLOCK.search(text):
        keep = max(m.group().count(f"<{m.group(1)}>") - 1, 0)
        text = text[: m.start()] + f"<{m.group(1)}>" * keep + text[m.end() :]
    return text


def _deepening(block: str) -> bool:
    """A failure title spans lines whose indent grows strictly."""
    last = 0
    for line in block.split("\n"):
        if indent_of(line) <= last:
            return False
        last = indent_of(line)
    return True


def parse_log_p5js(log: str) -> dict[str, str]:
    """p5.js (mocha in a browser): the numbered failures ``1) suite\\n   test:``, their lines joined by ``:``."""
    text = _without_xml(_without_json(strip_ansi(log)))
    result: dict[str, str] = {}
    for m in _P5_FAIL.finditer(text):
        if _deepening(m.group(2)):
            result[":".join(part.strip() for part in m.group(2).split("\n"))] = FAILED
    return result


def parse_log_immutable_js(log: str, ctx: ParseContext | None) -> dict[str, str]:
    """immutable-js's instances use two runners: the pull-request number (last part of the id) says which."""
    instance_id = ctx.instance_id if ctx else ""
    number = instance_id.split("-")[-1]
    if number in IMMUTABLE_JEST:
        return parse_log_jest(log)
    if number in IMMUTABLE_JEST_JSON:
        return parse_log_jest_json(log)
    raise ValueError(f"parse_log_immutable_js: unknown instance id {instance_id!r}")
