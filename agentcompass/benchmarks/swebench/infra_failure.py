"""Which failures look like a broken environment rather than a wrong patch (swebench 5.x's advisory tags).

Signatures are ``(reason, tier, regex)``, searched in order over a log; the first match wins. ``environment``
means the patch cannot plausibly have caused it, ``ambiguous`` that it may have. A tagged instance stays
unresolved (or an error): the tags never change a score.
"""

from __future__ import annotations

import re
from pathlib import Path

TIER_ENVIRONMENT = "environment"
TIER_AMBIGUOUS = "ambiguous"

SIGNATURES: tuple[tuple[str, str, str], ...] = (
    ("browser_launch_failed", TIER_ENVIRONMENT, r"Failed to launch|Failed to connect to the bus"),
    ("display_unavailable", TIER_ENVIRONMENT, r"cannot open display|Missing X server|unable to open X display"),
    ("out_of_memory", TIER_ENVIRONMENT, r"Cannot allocate memory|OutOfMemoryError|^Killed$"),
    ("container_unavailable", TIER_ENVIRONMENT, r"Error response from daemon|Cannot connect to the Docker daemon"),
    ("network_unreachable", TIER_ENVIRONMENT, r"Could not resolve host|Temporary failure in name resolution"),
    ("missing_module", TIER_AMBIGUOUS, r"Cannot find module|MODULE_NOT_FOUND|ModuleNotFoundError"),
    ("no_tests_collected", TIER_AMBIGUOUS, r"no tests ran|collected 0 items"),
    ("tests_timed_out", TIER_AMBIGUOUS, r"Timeout error: \d+ seconds exceeded"),
)
_COMPILED = tuple((reason, tier, re.compile(rx, re.MULTILINE)) for reason, tier, rx in SIGNATURES)


def classify_text(text: str) -> tuple[str, str] | None:
    """(reason, tier) of the first matching signature, else None."""
    if not text:
        return None
    for reason, tier, pattern in _COMPILED:
        if pattern.search(text):
            return reason, tier
    return None


def classify_files(*paths: Path) -> tuple[str, str] | None:
    """:func:`classify_text` over the existing files among ``paths``, joined by newlines."""
    chunks = [p.read_text(errors="replace") for p in paths if p.exists()]
    return classify_text("\n".join(chunks))
