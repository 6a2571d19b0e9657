"""Which failed attempts are retried."""

from __future__ import annotations

import re
from collections.abc import Sequence


def should_retry(error_line: str, typed_retryable: bool, patterns: Sequence[str]) -> bool:
    """Retry when the error is typed retryable, or a pattern is found in ``"<ErrorType>: <message>"``."""
    return typed_retryable or any(re.search(p, error_line) for p in patterns)
