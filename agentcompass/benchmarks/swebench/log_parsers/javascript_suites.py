"""Log parsers of the JavaScript repositories of SWE-bench Multimodal's test split (5.x datasets name them in
their ``log_parser`` column): highlight.js, Prism, ESLint, bpmn-js, OpenLayers, Grommet, Fusion Next,
Lighthouse and Quarto."""

from __future__ import annotations

import json
import re

from .base import FAILED, PASSED, ParseContext, indent_of, nest, strip_ansi
from .javascript import parse_log_carbon

_MOCHA_SUMMARY = re.compile(r"\n[ \t]*\d+ passing")
_TIMING_MS = re.compile(r"\(\d+ms\)")
_NUMBERED = re.compile(r"^\d+\)")
PRISM_TEST_CMD = "./node_modules/.bin/mocha tests/run.js --reporter json"
_ESLINT = re.compile(r"(\s{2}\d+\))([\s\S]*?)\s+(?:(.*)Error)")
_BPMN = (
    re.compile(r"2KPhantomJS\s[\d\.]+\s\(Linux\s[\d\.]+\)\s(.*)FAILED\n"),
    re.compile(r"2KPhantomJS\s[\d\.]+\s\(Linux\sx86\_64\)\s(.*)FAILED\n"),
    re.compile(r"Chrome\sHeadless\s(.*)\s\(Linux\sx86\_64\)\s(.*)FAILED\n"),
    re.compile(r"HeadlessChrome\s[\d\.]+\s\(Linux\s[\d\.]+\)\s(.*)FAILED\n"),
)
_OPENLAYERS = (
    re.compile(r"Chrome\sHeadless\s[\d\.]+\s\(Linux\s[\d\.\_\S]+\)\s(.*)\sFAILED\n", re.MULTILINE),
    re.compile(r"Chrome\s[\d\.]+\s\(Linux\s[\d\.\_\S]+\)\s(.*)FAILED\n", re.MULTILINE),
    re.compile(r"^\s{2}\d+\)([\s\S]*?)Error:", re.MULTILINE),
    re.compile(r"^case\s(.*):\smismatch", re.MULTILINE),
)
_GROMMET_TIMING = re.compile(r"\s\([\d\.]+\s?(?:ms|s)\)$")
_SPACES = re.compile(r"\s+")
NEXT_V2_VERSIONS = ("1.27",)  # Fusion Next versions whose logs are Cypress runs
_NEXT_SUITES = re.compile(r"Running\:(.*)\)\n{3}\s{2}(.*)\n")
_NEXT_FAIL = re.compile(r"^\s{4}\d+\)\s(.*)", re.MULTILINE)
_NEXT_PASS = re.compile(r"^\s{4}✓\s(.*)\(", re.MULTILINE)
_NEXT_ASSERTION = re.compile(r"AssertionError:\s+#([\s\S]*?)\n\n", re.DOTALL)
_NEXT_SKIPPED = ("ERROR", "LOG", "WARN", "Check", "in")
LIGHTHOUSE_MOCHA_VERSIONS = ("9.5", "10.0", "10.2")
_LH_MOCHA_LINES = (
    (re.compile(r"✔\s(.*)\s\(\d+m+s\)"), PASSED),
    (re.compile(r"✔\s(.*)"), PASSED),
    (re.compile(r"\d+\)\s(.*)\s\(\d+m+s\)"), FAILED),
    (re.compile(r"\d+\)\s(.*)"), FAILED),
)
_FULL_TITLE = re.compile(r"\"fullTitle\"\:\s\"(.*)\",\n", re.MULTILINE)


def parse_log_highlightjs(log: str) -> dict[str, str]:
    """Mocha's spec reporter (before its ``N passing`` summary): ``suite`` lines, ``✓ test`` / ``1) test``."""
    result: dict[str, str] = {}
    suite: list[str] = []
    for line in _MOCHA_SUMMARY.split(log)[0].split("\n"):
        bare = line.strip()
        if bare.startswith(("✓", "✔")):
            name = _TIMING_MS.sub("", line.split(bare[0], 1)[1]).strip()
            result[".".join([*suite, name])] = PASSED
        elif _NUMBERED.match(bare):
            name = _TIMING_MS.sub("", line.split(")", 1)[1]).strip()
            result[".".join([*suite, name])] = FAILED
        elif line.startswith("  "):
            suite = [bare]
    return result


def parse_log_prismjs(log: str) -> dict[str, str]:
    """Mocha's JSON report after each run of Prism's test command: failures, then passes."""
    result: dict[str, str] = {}
    for run in log.split(PRISM_TEST_CMD)[1:]:
        report = json.loads("{" + run.split("{", 1)[-1].rsplit("}", 1)[0] + "}")
        for test in report["failures"]:
            result[test["fullTitle"]] = FAILED
        for test in report["passes"]:
            result[test["fullTitle"]] = PASSED
    return result


def parse_log_eslint(log: str) -> dict[str, str]:
    """ESLint (mocha): the numbered failures up to their ``...Error``, whitespace collapsed."""
    return {_SPACES.sub(" ", m[1]).strip(): FAILED for m in _ESLINT.findall(log)}


def parse_log_bpmn_js(log: str) -> dict[str, str]:
    """Karma's ``<browser> (Linux ...) name FAILED`` lines of PhantomJS and headless Chrome."""
    result: dict[str, str] = {}
    for pattern in _BPMN:
        for found in pattern.findall(log):
            result[found[1] if isinstance(found, tuple) else found] = FAILED
    return result


def parse_log_openlayers(log: str) -> dict[str, str]:
    """Karma's failed lines, mocha's numbered failures and rendering ``case name: mismatch`` lines."""
    result: dict[str, str] = {}
    for pattern in _OPENLAYERS:
        for found in pattern.findall(log):
            result[_SPACES.sub(" ", found).strip()] = FAILED
    return result


def parse_log_grommet(log: str) -> dict[str, str]:
    """Jest's per-file ``FAIL path`` / ``PASS path (1 s)`` lines, timing removed; a PASS wins."""
    result: dict[str, str] = {}
    for word, status in (("FAIL", FAILED), ("PASS", PASSED)):
        for found in re.findall(rf"^{word}\s(.*)", log, re.MULTILINE):
            result[_GROMMET_TIMING.sub("", found.strip())] = status
    return result


def _next_karma(log: str) -> dict[str, str]:
    result: dict[str, str] = {}
    suite: list[tuple[str, int]] = []
    log = _NEXT_ASSERTION.sub("", strip_ansi(log))
    for run in log.split(" xvfb-run ")[1:]:
        for line in run.split("Starting browser Chrome")[-1].split("\n"):
            if line.startswith("TOTAL"):
                break
            if line.strip().startswith(_NEXT_SKIPPED):
                continue
            if m := re.match(r".*?✗\s*(.*)", line):
                result[" - ".join([*(s for s, _ in suite), m.group(1)])] = FAILED
            elif m := re.match(r".*?✓\s*(.*)", line):
                result[" - ".join([*(s for s, _ in suite), m.group(1)])] = PASSED
            elif indent_of(line) > 0:
                nest(suite, line)
    return result


def _next_cypress(log: str) -> dict[str, str]:
    result: dict[str, str] = {}
    parts = _NEXT_SUITES.split(log)
    for i, found in enumerate(_NEXT_SUITES.findall(log)):
        body = parts[(i + 1) * 3]
        for name in _NEXT_FAIL.findall(body):
            result[f"{found[-1]}: {name.strip()}"] = FAILED
        for name in _NEXT_PASS.findall(body):
            result[f"{found[-1]}: {name.strip()}"] = PASSED
    return result


def parse_log_next(log: str, ctx: ParseContext | None) -> dict[str, str]:
    """Fusion Next: Karma's ``✓`` / ``✗`` lines under indented suites, or Cypress runs (version 1.27)."""
    version = ctx.version if ctx else ""
    return _next_cypress(log) if version in NEXT_V2_VERSIONS else _next_karma(log)


def _lighthouse_mocha(log: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for run in re.split(r"running\s\d+\stest\sfiles", log)[1:]:
        suite: list[tuple[str, int]] = []
        for line in re.split(r"\d+\spassing", run)[0].strip().split("\n"):
            for pattern, status in _LH_MOCHA_LINES:
                if m := pattern.match(line.strip()):
                    result[" - ".join([*(s for s, _ in suite), m.group(1)])] = status
                    break
            else:
                if indent_of(line) > 0:
                    nest(suite, line)
    return result


def _lighthouse_json(log: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for run in log.split("./node_modules/.bin/mocha --reporter json")[1:]:
        for name in _FULL_TITLE.findall(run.split('"passes": [')[-1].rsplit("]", 1)[0]):
            result[name] = PASSED
        for name in _FULL_TITLE.findall(run.split('"failures": [')[-1].rsplit("],", 1)[0]):
            result[name] = FAILED
    return result


def parse_log_lighthouse(log: str, ctx: ParseContext | None) -> dict[str, str]:
    """Lighthouse by version: mocha's spec reporter (9.5, 10.0, 10.2), Jest (3 and later), mocha's JSON."""
    version = ctx.version if ctx else ""
    if version in LIGHTHOUSE_MOCHA_VERSIONS:
        return _lighthouse_mocha(log)
    if float(version) >= 3:
        return parse_log_carbon(log)
    return _lighthouse_json(log)


_QUARTO_TEST = re.compile(r"\[(smoke|unit)\]")
_QUARTO_TMP = (re.compile(r"/tmp/(\w+)\.qmd"), re.compile(r"/tmp/(\w+)/"))
_QUARTO_END = re.compile(r"ERRORS|failures:")
_QUARTO_STATUS = ((re.compile(r"32mok"), PASSED), (re.compile(r"31mFAILED"), FAILED))


def _quarto_ignored(line: str) -> bool:
    """Summary lines (``test result:``, ``N passed | N failed (N steps)``) and INFO lines are not results."""
    summary = all(word in line for word in ("passed", "failed", "steps"))
    return bool(re.match(r"test result:", line)) or summary or "34mINFO" in line


def parse_log_quarto_cli(log: str) -> dict[str, str]:
    """Deno's test output for Quarto, up to ``ERRORS`` / ``failures:``: ``[smoke] name ... ok`` (colour codes
    kept), temporary paths renamed ``/tmp/<n>`` in order of appearance; a test line without a status failed."""
    result: dict[str, str] = {}
    renamed: dict[str, int] = {}
    for line in log.split("\n"):
        if _QUARTO_END.search(line):
            break
        if not _QUARTO_TEST.search(line):
            continue
        for pattern in _QUARTO_TMP:
            if m := pattern.search(line):
                renamed.setdefault(m.group(0), len(renamed))
                line = pattern.sub(f"/tmp/{renamed[m.group(0)]}", line)
        name = line.split("...")[0].strip()
        if _quarto_ignored(line):
            continue
        status = next((s for pattern, s in _QUARTO_STATUS if pattern.search(line)), None)
        if status is not None:
            result[name] = status
        elif name not in result:
            result[name] = FAILED
    return result
