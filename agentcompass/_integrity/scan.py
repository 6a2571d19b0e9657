"""Scan one attempt: its events through every detector, the flags and the verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .detectors import DETECTORS
from .events import attempt_events
from .flags import HACK, Facts, Flag, verdict

MAX_FLAGS = 50


def scan_attempt(
    attempt_dir: Path | str, result: dict[str, Any], verifier_log: str = "", benchmark: str = ""
) -> dict[str, Any]:
    """``{verdict: clean | suspect | hack, flags: [...], n_flags}`` of one attempt from its directory
    (trajectories), its ``result.json`` (grade details, submission) and its verifier log. Deterministic; reads
    only files."""
    facts = Facts(result=result, verifier_log=verifier_log, benchmark=benchmark)
    events = attempt_events(Path(attempt_dir), result)
    flags: list[Flag] = []
    for detect in DETECTORS.values():
        flags += detect(events, facts)
    flags.sort(key=lambda f: f["severity"] != HACK)
    return {"verdict": verdict(flags), "flags": flags[:MAX_FLAGS], "n_flags": len(flags)}


def summary_of(integrity: dict[str, Any]) -> dict[str, Any]:
    """What a results row keeps of an attempt's integrity: the verdict, the detectors that fired and the review's
    verdict when it was reviewed."""
    detectors = sorted({f["detector"] for f in integrity.get("flags") or []})
    out = {"verdict": integrity.get("verdict"), "detectors": detectors}
    review = integrity.get("review")  # the LLM review (docs/integrity.md): its verdict, or error
    return {**out, "review": review.get("verdict") or "error"} if isinstance(review, dict) else out
