"""Secrets never reach disk or logs: redaction of config trees and of log records."""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

REDACTED = "***REDACTED***"
_SECRET_KEY = re.compile(r"(api[_-]?key|apikey|token|secret|password|authorization|credential)", re.I)
_known: set[str] = set()
_lock = threading.Lock()


def register_secret(value: Any) -> None:
    """Remember a secret value so log records and text written by the run never contain it."""
    text = value.get_secret_value() if hasattr(value, "get_secret_value") else value
    if isinstance(text, str) and len(text) >= 4:
        with _lock:
            _known.add(text)


def scrub(text: str) -> str:
    """Replace every registered secret in ``text``."""
    with _lock:
        secrets = sorted(_known, key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def redact(obj: Any) -> Any:
    """A copy of a config tree with secret-looking keys' values replaced and known secrets scrubbed."""
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            if isinstance(key, str) and _SECRET_KEY.search(key) and value not in (None, "", {}, []):
                out[key] = REDACTED
            else:
                out[key] = redact(value)
        return out
    if isinstance(obj, (list, tuple)):
        return [redact(v) for v in obj]
    if isinstance(obj, str):
        return scrub(obj)
    if hasattr(obj, "get_secret_value"):
        return REDACTED
    return obj


class RedactingFilter(logging.Filter):
    """A logging filter that scrubs registered secrets from every record's message."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = scrub(message)
        if clean != message or record.args:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = scrub(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True
