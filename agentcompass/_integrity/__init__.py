"""The integrity scan: deterministic detectors of reward hacking over every attempt's record (docs/integrity.md).

Pure: reads an attempt's files, returns ``{verdict, flags}``; the orchestrator runs it when a run is finalised
and ``agentcompass scan RUN_DIR`` on any run directory.
"""

from __future__ import annotations

from .detectors import DETECTORS
from .flags import CLEAN, HACK, SUSPECT, VERDICTS, verdict
from .scan import scan_attempt, summary_of

__all__ = ["CLEAN", "DETECTORS", "HACK", "SUSPECT", "VERDICTS", "scan_attempt", "summary_of", "verdict"]
