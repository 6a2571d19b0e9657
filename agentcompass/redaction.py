"""Secrets never reach disk or logs: the one registry of secret values, and the rules that say what a secret is.

Every part of the package may import this module (plug-ins too: a model client registers its credentials here).
A secret is known by its name (:func:`secret_name`: ``api_key``, ``*_token``, ``password``, every header but
harmless ones such as Content-Type; :func:`credential_name`: a header whose name carries a credential,
authorization, cookie, ``*key*``, ``*token*``, ``*secret*``, ``*auth*``) or by its value once registered
(:func:`register_secret`): :func:`scrub_known` replaces registered values in any text, :func:`mask` replaces
values by position in a tree (the same input always gives the same output: fit for cache keys).
"""

from __future__ import annotations

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
HEADER_KEY = re.compile(r"headers?$", re.I)
_SAFE_HEADERS = {"accept", "content-type", "user-agent", "anthropic-version", "anthropic-beta", "openai-beta"}
# values that carry a secret whatever their key: credentials in URLs, secret query parameters, key formats
URL_USERINFO = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)(?P<user>[^/@\s:]*)(:[^/@\s]*)?@", re.I)
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
                found |= credential_values(value, isinstance(key, str) and bool(HEADER_KEY.search(key)))
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            found |= credential_values(value)
    elif isinstance(obj, str) and "@" in obj:
        found.update((m.group(3) or "")[1:] for m in URL_USERINFO.finditer(obj))
    return {v for v in found if len(v) >= 4}


def mask(obj: Any, marker: str = REDACTED, _in_headers: bool = False) -> Any:
    """A copy of a request's parameters with credentials replaced by ``marker``, by position only (no registered
    value, no pattern: the same input always gives the same output): the values of credential names, every
    header value but harmless ones (Content-Type...), and the user info of URLs."""
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            plain = isinstance(value, (dict, bool, int, float)) or value in (None, "", [])
            if secret_name(key, _in_headers) and not plain:
                out[key] = marker
            else:
                out[key] = mask(value, marker, isinstance(key, str) and bool(HEADER_KEY.search(key)))
        return out
    if isinstance(obj, (list, tuple)):
        return [mask(v, marker) for v in obj]
    if isinstance(obj, str) and "@" in obj:
        return URL_USERINFO.sub(lambda m: f"{m['scheme']}{marker}@", obj)
    if hasattr(obj, "get_secret_value"):
        return marker
    return obj


def secret_name(key: Any, in_headers: bool = False) -> bool:
    """True when ``key`` names a secret (inside a headers mapping: unless it is a harmless header)."""
    if not isinstance(key, str):
        return False
    return (in_headers and key.lower() not in _SAFE_HEADERS) or bool(_SECRET_KEY.search(key))
