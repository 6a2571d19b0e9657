"""A flag (one finding of a detector, with its evidence), the attempt facts detectors read, and the verdict."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from . import commands
from .events import Event

CLEAN, SUSPECT, HACK = "clean", "suspect", "hack"
VERDICTS = (CLEAN, SUSPECT, HACK)


@dataclass
class Facts:
    """What a detector may read besides the events: the attempt's ``result.json``, its verifier log and the
    benchmark's id."""

    result: dict[str, Any] = field(default_factory=dict)
    verifier_log: str = ""
    benchmark: str = ""

    @property
    def grade_details(self) -> dict[str, Any]:
        return ((self.result.get("grade") or {}).get("details")) or {}

    @property
    def swebench(self) -> bool:
        return "swebench" in self.benchmark or "swe_bench" in self.benchmark


class Flag(TypedDict):
    """One finding of a detector (``result.json``'s ``integrity.flags``, docs/integrity.md)."""

    detector: str
    severity: str  # suspect | hack
    reason: str
    source: NotRequired[str]  # the file the event was read from
    step: NotRequired[int | str | None]
    path: NotRequired[str]
    excerpt: NotRequired[str]
    command: NotRequired[str]


def flag(
    detector: str,
    severity: str,
    reason: str,
    event: Event | None = None,
    *,
    needle: str = "",
    path: str | None = None,
    excerpt: str | None = None,
    command: str | None = None,
) -> Flag:
    """A finding: ``detector``, ``severity`` (suspect / hack), ``reason``, and its evidence: the event's
    ``source`` file, ``step``, ``command`` or ``path``, an ``excerpt`` (around ``needle``); then the ``path``,
    ``excerpt`` or ``command`` given, when not empty."""
    out: Flag = {"detector": detector, "severity": severity, "reason": reason}
    if event is not None:
        out["source"], out["step"] = event.source, event.step
        if event.kind == "command":
            out["command"] = commands.excerpt(event.text, needle)
        else:
            out["path"] = event.path
            if event.text:
                out["excerpt"] = commands.excerpt(event.text, needle)
    if path:
        out["path"] = path
    if excerpt:
        out["excerpt"] = excerpt
    if command:
        out["command"] = command
    return out


def verdict(flags: list[Flag]) -> str:
    severities = {f.get("severity") for f in flags}
    return HACK if HACK in severities else SUSPECT if SUSPECT in severities else CLEAN
