"""Log parsers of the Python repositories: pytest (three variants), Django's runner, sympy, seaborn, matplotlib."""

from __future__ import annotations

import re

from .base import ERROR, FAILED, PASSED, SKIPPED, STATUSES

_SKIP_COUNT = re.compile(r"^\[\d+\]$")  # "SKIPPED [3] tests/x.py:4: reason": [3] is not a test
_ANSI_CODE = re.compile(r"\[(\d+)m")
_CONTROL = str.maketrans("", "", "".join(chr(c) for c in range(1, 32)))
_OPTION = re.compile(r"(.*?)\[(.*)\]")


def _status_first(line: str) -> bool:
    return line.startswith(STATUSES)


def _is_skip_count(status: str, name: str) -> bool:
    return status == SKIPPED and bool(_SKIP_COUNT.match(name))


def _pytest_line(line: str) -> tuple[str, str] | None:
    """``STATUS id [- message]`` -> (id, status); the message of FAILED lines is dropped."""
    if not _status_first(line):
        return None
    if line.startswith(FAILED):
        line = line.replace(" - ", " ")
    tokens = line.split()
    if len(tokens) <= 1 or _is_skip_count(tokens[0], tokens[1]):
        return None
    return tokens[1], tokens[0]


def parse_log_pytest(log: str) -> dict[str, str]:
    """pytest ``-rA`` summary lines: ``PASSED tests/x.py::test_a``, ``FAILED tests/x.py::t - msg``."""
    result: dict[str, str] = {}
    for line in log.split("\n"):
        parsed = _pytest_line(line)
        if parsed:
            result[parsed[0]] = parsed[1]
    return result


def _shorten_option(test_id: str) -> str:
    match = _OPTION.search(test_id)
    if not match:
        return test_id
    main, option = match.groups()
    if option.startswith("/") and not option.startswith("//") and "*" not in option:
        option = "/" + option.split("/")[-1]
    return f"{main}[{option}]"


def parse_log_pytest_options(log: str) -> dict[str, str]:
    """pytest summary lines, with parametrize ids that are absolute paths shortened to their last part."""
    return {_shorten_option(test): status for test, status in parse_log_pytest(log).items()}


def parse_log_pytest_v2(log: str) -> dict[str, str]:
    """pytest summary lines after stripping ANSI colour codes; also ``id STATUS`` (status-last) lines."""
    result: dict[str, str] = {}
    for raw in log.split("\n"):
        line = _ANSI_CODE.sub("", raw).translate(_CONTROL)
        if _status_first(line):
            if line.startswith(FAILED):
                line = line.split(" - ", 1)[0]
            tokens = line.split()
            if len(tokens) >= 2 and not _is_skip_count(tokens[0], tokens[1]):
                result[" ".join(tokens[1:])] = tokens[0]
        elif line.endswith(STATUSES):
            tokens = line.split()
            if len(tokens) >= 2:
                result[" ".join(tokens[:-1])] = tokens[-1]
    return result


def parse_log_matplotlib(log: str) -> dict[str, str]:
    """pytest summary lines with matplotlib's enum reprs in ids normalised to their values."""
    text = log.replace("MouseButton.LEFT", "1").replace("MouseButton.RIGHT", "3")
    return parse_log_pytest(text)


def parse_log_seaborn(log: str) -> dict[str, str]:
    """seaborn: ``FAILED id``, ``PASSED id`` and ``id PASSED ...`` lines."""
    result: dict[str, str] = {}
    for line in log.split("\n"):
        parts = line.split()
        if len(parts) < 2:
            continue
        if line.startswith(FAILED):
            result[parts[1]] = FAILED
        elif f" {PASSED} " in line:
            if parts[1] == PASSED:
                result[parts[0]] = PASSED
        elif line.startswith(PASSED):
            result[parts[1]] = PASSED
    return result


_DJANGO_PASS_SUFFIXES = (" ... ok", " ... OK", " ...  OK")
_DJANGO_INTERRUPTED = (
    r"^(.*?)\s\.\.\.\sTesting\ against\ Django\ installed\ in\ ((?s:.*?))\ silenced\)\.\nok$",
    r"^(.*?)\s\.\.\.\sInternal\ Server\ Error:\ \/(.*)\/\nok$",
    r"^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$",
)


def _django_pass(line: str) -> str | None:
    for suffix in _DJANGO_PASS_SUFFIXES:
        if line.endswith(suffix):
            if line.startswith("Applying sites.0002_alter_domain_unique...test_no_migrations"):
                line = line.split("...", 1)[-1].strip()  # a migration line glued to the test name
            return line.rsplit(suffix, 1)[0]
    return None


def _django_line(line: str, prev: str | None, result: dict[str, str]) -> None:
    if "--version is equivalent to version" in line:
        result["--version is equivalent to version"] = PASSED
    passed = _django_pass(line)
    if passed is not None:
        result[passed] = PASSED
    if " ... skipped" in line:
        result[line.split(" ... skipped")[0]] = SKIPPED
    if line.endswith(" ... FAIL"):
        result[line.split(" ... FAIL")[0]] = FAILED
    if line.startswith("FAIL:"):
        result[line.split()[1].strip()] = FAILED
    if line.endswith(" ... ERROR"):
        result[line.split(" ... ERROR")[0]] = ERROR
    if line.startswith("ERROR:"):
        result[line.split()[1].strip()] = ERROR
    if line.lstrip().startswith("ok") and prev is not None:
        result[prev] = PASSED  # "name ... <extra output>" then a lone "ok" closes the test


def parse_log_django(log: str) -> dict[str, str]:
    """Django's runner at ``--verbosity 2``: ``name (module.Class) ... ok|skipped|FAIL|ERROR``."""
    result: dict[str, str] = {}
    prev: str | None = None
    for raw in log.split("\n"):
        line = raw.strip()
        if " ... " in line:
            prev = line.split(" ... ")[0]
        _django_line(line, prev, result)
    for pattern in _DJANGO_INTERRUPTED:
        for match in re.finditer(pattern, log, re.MULTILINE):
            result[match.group(1)] = PASSED
    return result


def parse_log_sympy(log: str) -> dict[str, str]:
    """sympy's ``bin/test``: ``test_x ok|F|E`` lines and ``____ file.py:test_x ____`` failure headers."""
    result: dict[str, str] = {}
    for match in re.findall(r"(_*) (.*)\.py:(.*) (_*)", log):
        result[f"{match[1]}.py:{match[2]}"] = FAILED
    for raw in log.split("\n"):
        line = raw.strip()
        if not line.startswith("test_"):
            continue
        if line.endswith(" E"):
            result[line.split()[0]] = ERROR
        if line.endswith(" F"):
            result[line.split()[0]] = FAILED
        if line.endswith(" ok"):
            result[line.split()[0]] = PASSED
    return result
