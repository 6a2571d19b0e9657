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
# header names that carry a credential: a value under such a name is a credential wherever else it appears
_CREDENTIAL_HEADER = re.compile(r"authorization|cookie|key|token|secret|auth|passw|credential|session|signature", re.I)
# the parts of a credential value worth hiding on their own: "Bearer <token>", "name=<value>; name2=<value2>"
_VALUE_PARTS = re.compile(r"[\s;,]+")
_MIN_PART = 8
_known: set[str] = set()
_lock = threading.Lock()


def register_secret(value: Any) -> None:
    """Remember a secret value so log records and text written by the run never contain it."""
    text = value.get_secret_value() if hasattr(value, "get_secret_value") else value
    if isinstance(text, str) and len(text) >= 4:
        with _lock:
            _known.add(text)


def credential_parts(value: str) -> list[str]:
    """``value`` and, for a composite header value, its parts that are secrets on their own: the token of
    ``Bearer <token>``, the values of ``a=<v1>; b=<v2>`` (parts shorter than 8 characters are left out)."""
    parts = [value]
    for piece in _VALUE_PARTS.split(value):
        piece = piece.split("=", 1)[1] if "=" in piece else piece
        if len(piece) >= _MIN_PART and piece != value:
            parts.append(piece)
    return parts


def known_secrets() -> list[str]:
    """Every registered secret value, longest first."""
    with _lock:
        return sorted(_known, key=len, reverse=True)


def scrub_known(text: str, marker: str = REDACTED, extra: list[str] | None = None) -> str:
    """``text`` with every registered secret (and every value of ``extra``) replaced by ``marker``; only
    values, no pattern (cheap enough for every line a run writes)."""
    values = known_secrets() if not extra else sorted({*known_secrets(), *extra}, key=len, reverse=True)
    for secret in values:
        if secret in text:
            text = text.replace(secret, marker)
    return text


def credential_name(key: Any, in_headers: bool = False) -> bool:
    """True when ``key`` names a credential: a secret-looking name (:func:`secret_name`), or inside a headers
    mapping a header whose name carries one (authorization, cookie, *key*, *token*, *secret*, *auth*, ...)."""
    if not isinstance(key, str):
        return False
    return bool(_SECRET_KEY.search(key)) or (in_headers and bool(_CREDENTIAL_HEADER.search(key)))


def credential_values(obj: Any, _in_headers: bool = False) -> set[str]:
    """The credential values of a config tree: the strings under credential names (:func:`credential_name`,
    with the parts of composite header values), secret objects' values and the passwords of URLs."""
    found: set[str] = set()
    if isinstance(obj, dict):
        for key, value in obj.items():
            if hasattr(value, "get_secret_value"):
                value = value.get_secret_value()
            if credential_name(key, _in_headers) and isinstance(value, str):
                found.update(credential_parts(value))
            else:
                found |= credential_values(value, isinstance(key, str) and bool(_HEADER_KEY.search(key)))
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            found |= credential_values(value)
    elif isinstance(obj, str) and "@" in obj:
        found.update((m.group(3) or "")[1:] for m in _URL_USERINFO.finditer(obj))
    return {v for v in found if len(v) >= 4}


def mask(obj: Any, marker: str = REDACTED, _in_headers: bool = False) -> Any:
    """A copy of a request's parameters with credentials replaced by ``marker``, by position only (no registered
    value, no pattern: the same input always gives the same output): the values of credential names, every
    header value but harmless ones (Content-Type...), and the user info of URLs."""
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            hidden = secret_name(key, _in_headers) or credential_name(key, _in_headers)
            if hidden and value not in (None, "", {}, []) and not isinstance(value, (dict, bool, int, float)):
                out[key] = marker
            else:
                out[key] = mask(value, marker, isinstance(key, str) and bool(_HEADER_KEY.search(key)))
        return out
    if isinstance(obj, (list, tuple)):
        return [mask(v, marker) for v in obj]
    if isinstance(obj, str) and "@" in obj:
        return _URL_USERINFO.sub(lambda m: f"{m['scheme']}{marker}@", obj)
    if hasattr(obj, "get_secret_value"):
        return marker
    return obj


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
            secret = hasattr(value, "get_secret_value")
            if secret:
                value = value.get_secret_value()
            if (secret or secret_name(key, _in_headers)) and isinstance(value, str):
                for part in credential_parts(value):  # strings only: a number or a flag is no secret
                    register_secret(part)
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
