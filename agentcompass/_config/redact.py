"""Secrets never reach disk or logs: redaction of config trees and of log records."""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

REDACTED = "***REDACTED***"
# names whose values are secrets: config keys, environment variable names, header names
# "token" only as a word of its own (GITHUB_TOKEN, hf_token, token), never max_tokens or tokenizer
_SECRET_KEY = re.compile(
    r"(api[_-]?key|apikey|(^|[_-])token($|[_-])|secret|passw(or)?d|authorization|credential|"
    r"private[_-]?key|access[_-]?key|cookie|(^|[_-])auth($|[_-])|(^|[_-])dsn$|(^|[_-])key$|"
    r"^x[_-]auth)",
    re.I,
)
# containers whose every value may be a secret unless its name is known to be harmless (HTTP headers)
_HEADER_KEY = re.compile(r"headers?$", re.I)
_SAFE_HEADERS = {"accept", "content-type", "user-agent", "anthropic-version", "anthropic-beta", "openai-beta"}
# values that carry a secret whatever their key: credentials in URLs, secret query parameters, key formats
_URL_USERINFO = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)(?P<user>[^/@\s:]*)(:[^/@\s]*)?@", re.I)
_QUERY_SECRET = re.compile(r"(?P<key>[?&](api[_-]?key|key|token|access_token|secret|password|sig)=)[^&#\s]+", re.I)
_KEY_FORMATS = re.compile(
    r"\b(sk-[A-Za-z0-9_-]{8,}|sk-ant-[A-Za-z0-9_-]{8,}|gh[pousr]_[A-Za-z0-9]{16,}|"
    r"github_pat_[A-Za-z0-9_]{16,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{8,}|"
    r"hf_[A-Za-z0-9]{16,}|glpat-[A-Za-z0-9_-]{16,})\b"
)
_known: set[str] = set()
_lock = threading.Lock()


def register_secret(value: Any) -> None:
    """Remember a secret value so log records and text written by the run never contain it."""
    text = value.get_secret_value() if hasattr(value, "get_secret_value") else value
    if isinstance(text, str) and len(text) >= 4:
        with _lock:
            _known.add(text)


def scrub(text: str) -> str:
    """Replace every registered secret in ``text``, credentials in URLs and values in known key formats."""
    with _lock:
        secrets = sorted(_known, key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    if "@" in text:
        text = _URL_USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)
    if "=" in text:
        text = _QUERY_SECRET.sub(lambda m: f"{m['key']}{REDACTED}", text)
    return _KEY_FORMATS.sub(REDACTED, text)


def secret_name(key: Any, in_headers: bool = False) -> bool:
    """True when ``key`` names a secret (inside a headers mapping: unless it is a harmless header)."""
    if not isinstance(key, str):
        return False
    return (in_headers and key.lower() not in _SAFE_HEADERS) or bool(_SECRET_KEY.search(key))


def redact(obj: Any, _in_headers: bool = False) -> Any:
    """A copy of a config tree with secret-looking keys' values replaced (every value of a headers mapping but
    harmless ones such as Content-Type) and secrets in the remaining strings scrubbed (see :func:`scrub`)."""
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            if secret_name(key, _in_headers) and value not in (None, "", {}, []) and not isinstance(value, dict):
                out[key] = REDACTED
            else:
                out[key] = redact(value, isinstance(key, str) and bool(_HEADER_KEY.search(key)))
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
            if (secret_name(key, _in_headers) and isinstance(value, str)) or hasattr(value, "get_secret_value"):
                register_secret(value)  # strings only: a number or a flag is no secret to scrub everywhere
            else:
                register_config_secrets(value, isinstance(key, str) and bool(_HEADER_KEY.search(key)))
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            register_config_secrets(value)
    elif isinstance(obj, str) and "@" in obj:
        for m in _URL_USERINFO.finditer(obj):
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
