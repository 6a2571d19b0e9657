"""The integrity scan: deterministic detectors of reward hacking over every attempt's record (docs/integrity.md).

Pure: reads an attempt's files, returns ``{verdict, flags}`` (and builds the LLM review's messages: ``RUBRIC``,
``review_messages``, ``parse_review_answer``); the orchestrator runs it when a run is finalised
and ``agentcompass scan RUN_DIR`` on any run directory.
"""

from __future__ import annotations

from .detectors import DETECTORS
from .flags import CLEAN, HACK, SUSPECT, VERDICTS, verdict
from .review import RUBRIC
from .review import messages as review_messages
from .review import parse_answer as parse_review_answer
from .scan import scan_attempt, summary_of

__all__ = [
    "CLEAN",
    "DETECTORS",
    "HACK",
    "RUBRIC",
    "SUSPECT",
    "VERDICTS",
    "parse_review_answer",
    "review_messages",
    "scan_attempt",
    "summary_of",
    "verdict",
]
