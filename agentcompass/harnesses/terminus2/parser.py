"""The Terminus-2 JSON reply parser (FORMATS.md D1-D2).

A reply is a JSON object ``{analysis, plan, commands: [{keystrokes, duration}], task_complete}``, possibly
surrounded by prose. The first balanced ``{...}`` (braces inside string literals do not count) is decoded.
Problems the agent can go on with are *warnings*; problems that leave nothing safe to execute are *errors*.
On error two auto-fixes are tried (append the missing ``}``; extract an embedded object); a fix that works
turns into an ``AUTO-CORRECTED`` warning.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Iterator

REQUIRED_FIELDS = ("analysis", "plan", "commands")
FIELD_ORDER = ("analysis", "plan", "commands", "task_complete")
TRUE_STRINGS = ("true", "1", "yes")
FALSE_STRINGS = ("false", "0", "no", "")
DEFAULT_DURATION = 1.0


@dataclass
class Command:
    """One keystroke batch: sent verbatim, then the agent waits ``duration`` seconds."""

    keystrokes: str
    duration: float = DEFAULT_DURATION


@dataclass
class ParseResult:
    commands: list[Command] = field(default_factory=list)
    task_complete: bool = False
    error: str = ""
    warnings: list[str] = field(default_factory=list)
    analysis: str = ""
    plan: str = ""

    @property
    def warning(self) -> str:
        """The warnings as one ``- ...`` bullet list (empty when there are none)."""
        return "\n".join(f"- {w}" for w in self.warnings)


def _brace_depths(text: str) -> Iterator[tuple[int, int]]:
    """``(index, depth after it)`` for every ``{`` / ``}`` outside string literals. Quotes only delimit strings
    inside an object, so an apostrophe or a quote in the prose before the JSON does not confuse the scan."""
    depth, in_string, escaped = 0, False, False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"' and depth:
            in_string = True
        elif ch == "{":
            depth += 1
            yield i, depth
        elif ch == "}" and depth:
            depth -= 1
            yield i, depth


def find_object(text: str) -> tuple[int, int]:
    """``(start, end)`` of the first balanced ``{...}`` in ``text``; ``(start, -1)`` when it never closes;
    ``(-1, -1)`` when there is no ``{`` at all."""
    start = -1
    for i, depth in _brace_depths(text):
        if depth == 0:
            return start, i + 1
        if depth == 1 and text[i] == "{":
            start = i
    return start, -1


def _unclosed_braces(text: str) -> int:
    """How many ``{`` are still open at the end of ``text`` (string literals skipped)."""
    depth = 0
    for _, depth in _brace_depths(text):
        pass
    return depth


def as_bool(value: Any, warnings: list[str]) -> bool:
    """``task_complete`` as a boolean: true, "true", "1", "yes" (any case) count as true."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        low = value.strip().lower()
        if low not in TRUE_STRINGS + FALSE_STRINGS:
            warnings.append(f"Field 'task_complete' should be a boolean, got {value!r}; treated as false")
        return low in TRUE_STRINGS
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    warnings.append(f"Field 'task_complete' should be a boolean, got {value!r}; treated as false")
    return False


def _duration(i: int, cmd: dict[str, Any], warnings: list[str], cap: float) -> float:
    if "duration" not in cmd:
        warnings.append(f"Command {i}: missing 'duration', using {DEFAULT_DURATION}")
        return DEFAULT_DURATION
    value = cmd["duration"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or value < 0:
        warnings.append(f"Command {i}: invalid 'duration' {value!r}, using {DEFAULT_DURATION}")
        return DEFAULT_DURATION
    if value > cap:
        warnings.append(f"Command {i}: duration {value} capped at {cap:g} seconds")
        return float(cap)
    return float(value)


def parse_commands(items: list[Any], warnings: list[str], cap: float) -> tuple[list[Command], str]:
    """The command list, or ``([], error)`` on the first element that cannot be executed."""
    commands: list[Command] = []
    for i, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            return [], f"Command {i} must be an object, got {type(item).__name__}"
        if "keystrokes" not in item:
            return [], f"Command {i} is missing the required 'keystrokes' field"
        keys = item["keystrokes"]
        if not isinstance(keys, str):
            return [], f"Command {i}: 'keystrokes' must be a string, got {type(keys).__name__}"
        duration = _duration(i, item, warnings, cap)
        unknown = [k for k in item if k not in ("keystrokes", "duration")]
        if unknown:
            warnings.append(f"Command {i}: unknown fields: {', '.join(unknown)}")
        if i < len(items) and not keys.endswith("\n"):
            warnings.append(f"Command {i} should end with a newline when another command follows; "
                            "otherwise both are typed on the same line")
        commands.append(Command(keys, duration))
    return commands, ""


def _check_structure(data: Any, warnings: list[str]) -> str:
    if not isinstance(data, dict):
        return f"Response must be a JSON object, got {type(data).__name__}"
    missing = [f for f in REQUIRED_FIELDS if f not in data]
    if missing:
        return f"Missing required fields: {', '.join(missing)}"
    for name in ("analysis", "plan"):
        if not isinstance(data[name], str):
            return f"Field '{name}' must be a string, got {type(data[name]).__name__}"
    if not isinstance(data["commands"], list):
        return f"Field 'commands' must be an array, got {type(data['commands']).__name__}"
    unknown = [k for k in data if k not in FIELD_ORDER]
    if unknown:
        warnings.append(f"Unknown fields: {', '.join(unknown)}")
    present = [k for k in data if k in FIELD_ORDER]
    if present != [k for k in FIELD_ORDER if k in data]:
        warnings.append(f"Fields are out of order: expected {', '.join(FIELD_ORDER)}")
    return ""


def _extract(text: str, warnings: list[str]) -> str:
    start, end = find_object(text)
    if start < 0 or end < 0:
        return ""
    if text[:start].strip():
        warnings.append("Extra text detected before the JSON object")
    if text[end:].strip():
        warnings.append("Extra text detected after the JSON object")
    return text[start:end]


def _try_parse(text: str, cap: float) -> ParseResult:
    warnings: list[str] = []
    content = _extract(text, warnings)
    if not content:
        return ParseResult(error="No valid JSON object found in the response", warnings=warnings)
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        shown = repr(content) if len(content) < 200 else repr(content[:100]) + "..."
        return ParseResult(error=f"Invalid JSON: {exc} | Content: {shown}", warnings=warnings)
    problem = _check_structure(data, warnings)
    if problem:
        return ParseResult(error=problem, warnings=warnings)
    done = as_bool(data.get("task_complete", False), warnings)
    commands, problem = parse_commands(data["commands"], warnings, cap)
    result = ParseResult(commands, done, "", warnings, data["analysis"], data["plan"])
    if problem and done:
        result.warnings.append(f"{problem} (ignored: task marked complete, no commands run)")
    elif problem:
        result.error = problem
    return result


def _fix_missing_brace(text: str) -> str | None:
    start = text.find("{")
    missing = _unclosed_braces(text[start:]) if start >= 0 else 0
    return text.rstrip() + "}" * missing if missing else None


def _fix_embedded_object(text: str) -> str | None:
    """The first ``{`` from which a whole JSON object holding the required fields decodes."""
    decoder = json.JSONDecoder()
    pos = text.find("{")
    while pos >= 0:
        try:
            obj, _ = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            obj = None
        if isinstance(obj, dict) and all(k in obj for k in REQUIRED_FIELDS):
            return json.dumps(obj)
        pos = text.find("{", pos + 1)
    return None


AUTO_FIXES: tuple[tuple[str, Callable[[str], str | None]], ...] = (
    ("added the missing closing brace", _fix_missing_brace),
    ("extracted the JSON object embedded in the response", _fix_embedded_object),
)


def parse_response(text: str, duration_cap: float = 60.0) -> ParseResult:
    """Parse one model reply; see the module docstring for errors, warnings and auto-fixes."""
    result = _try_parse(text, duration_cap)
    if not result.error:
        return result
    for name, fix in AUTO_FIXES:
        fixed = fix(text)
        if fixed is None or fixed == text:
            continue
        retry = _try_parse(fixed, duration_cap)
        if not retry.error:
            retry.warnings = [w for w in retry.warnings if not w.startswith("Extra text detected")]
            retry.warnings.insert(0, f"AUTO-CORRECTED: {name}; please send a single valid JSON object")
            return retry
    return result
