"""Secrets never reach disk or logs: redaction of config trees and of log records (the registry of secret values
and the rules of what a secret is live in :mod:`agentcompass.redaction`)."""

from __future__ import annotations

import logging
import re
from typing import Any

from agentcompass.redaction import (
    HEADER_KEY,
    REDACTED,
    URL_USERINFO,
    credential_name,
    credential_parts,
    credential_values,
    mask,
    register_secret,
    scrub_known,
    secret_name,
)

__all__ = [
    "REDACTED",
    "RedactingFilter",
    "credential_name",
    "credential_parts",
    "credential_values",
    "mask",
    "redact",
    "register_config_secrets",
    "register_secret",
    "scrub",
    "scrub_known",
    "secret_name",
]

# values that carry a secret whatever their key: secret query parameters, key formats
_QUERY_SECRET = re.compile(r"(?P<key>[?&](api[_-]?key|key|token|access_token|secret|password|sig)=)[^&#\s]+", re.I)
_KEY_FORMATS = re.compile(
    r"\b(sk-[A-Za-z0-9_-]{8,}|sk-ant-[A-Za-z0-9_-]{8,}|gh[pousr]_[A-Za-z0-9]{16,}|"
    r"github_pat_[A-Za-z0-9_]{16,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{8,}|"
    r"hf_[A-Za-z0-9]{16,}|glpat-[A-Za-z0-9_-]{16,})\b"
)


def scrub(text: str) -> str:
    """Replace every registered secret in ``text``, credentials in URLs and values in known key formats."""
    text = scrub_known(text)
    if "@" in text:
        text = URL_USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)
    if "=" in text:
        text = _QUERY_SECRET.sub(lambda m: f"{m['key']}{REDACTED}", text)
    return _KEY_FORMATS.sub(REDACTED, text)


def redact(obj: Any, _in_headers: bool = False) -> Any:
    """A copy of a config tree with secret-looking keys' values replaced (every value of a headers mapping but
    harmless ones such as Content-Type) and secrets in the remaining strings scrubbed (see :func:`scrub`)."""
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            if secret_name(key, _in_headers) and value not in (None, "", {}, []) and not isinstance(value, dict):
                out[key] = REDACTED
            else:
                out[key] = redact(value, isinstance(key, str) and bool(HEADER_KEY.search(key)))
        return out
    if isinstance(obj, (list, tuple)):
        return [redact(v) for v in obj]
    if isinstance(obj, str):
        return scrub(obj)
    if hasattr(obj, "get_secret_value"):
        return REDACTED
    return obj


def register_config_secrets(obj: Any, _in_headers: bool = False) -> None:
    """Register every value :func:`redact` would hide by its key, and URL credentials, so that log lines and
    messages written later (which see the raw values) are scrubbed of them too."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            secret = hasattr(value, "get_secret_value")
            if secret:
                value = value.get_secret_value()
            if (secret or secret_name(key, _in_headers)) and isinstance(value, str):
                for part in credential_parts(value):  # strings only: a number or a flag is no secret
                    register_secret(part)
            else:
                register_config_secrets(value, isinstance(key, str) and bool(HEADER_KEY.search(key)))
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            register_config_secrets(value)
    elif isinstance(obj, str) and "@" in obj:
        for m in URL_USERINFO.finditer(obj):
            password = (m.group(3) or "")[1:]
            register_secret(password)


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
