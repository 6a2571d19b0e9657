"""A flag (one finding of a detector, with its evidence), the attempt facts detectors read, and the verdict."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .commands import excerpt
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


def flag(detector: str, severity: str, reason: str, event: Event | None = None, **evidence: Any) -> dict[str, Any]:
    """A finding: ``detector``, ``severity`` (suspect / hack), ``reason``, and its evidence: the event's
    ``source`` file, ``step``, ``command`` or ``path``, an ``excerpt``."""
    out: dict[str, Any] = {"detector": detector, "severity": severity, "reason": reason}
    if event is not None:
        out.update(source=event.source, step=event.step)
        if event.kind == "command":
            out["command"] = excerpt(event.text, evidence.pop("needle", ""))
        else:
            out["path"] = event.path
            if event.text:
                out["excerpt"] = excerpt(event.text, evidence.pop("needle", ""))
    evidence.pop("needle", None)
    out.update({k: v for k, v in evidence.items() if v not in (None, "")})
    return out


def verdict(flags: list[dict[str, Any]]) -> str:
    severities = {f.get("severity") for f in flags}
    return HACK if HACK in severities else SUSPECT if SUSPECT in severities else CLEAN
