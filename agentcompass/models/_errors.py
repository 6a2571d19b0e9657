"""Turning SDK and transport exceptions (the SDKs' httpx, the gateway's aiohttp) into agentcompass model errors.

Every message names the protocol, the endpoint (base URL + path, no query string) and the HTTP status;
the API key is scrubbed from it, and the SDK exception is not chained (its request carries the key).
"""

from __future__ import annotations

import email.utils
import json
import math
import re
import time
from dataclasses import dataclass
from typing import Any

from agentcompass.errors import ContextLengthExceededError, ModelError, ModelRetryableError

RETRY_STATUSES = frozenset({408, 409, 425, 429})
_CONTEXT = re.compile(
    r"context_length_exceeded|maximum context length|context length|context window|"
    r"prompt is too long|too many tokens|input is too long|reduce the length|exceeds the maximum number of tokens",
    re.IGNORECASE,
)
_UNSUPPORTED = re.compile(
    r"unsupported (endpoint|route|url|api|path)|(endpoint|route|url|path|api)\b[^.]{0,40}"
    r"\b(not (supported|found|available|implemented)|unsupported|does not exist)|no route|"
    r"unknown (endpoint|route|url|path)|invalid url",
    re.IGNORECASE,
)


class UpstreamStatus(Exception):
    """An error status answered to a plain (non-SDK) request (``_upstream``); classified like an SDK's."""

    def __init__(self, status: int, headers: Any, body: Any) -> None:
        self.status_code, self.body = status, body
        self.response = _Response(headers)
        self.message = provider_message(body)
        super().__init__(f"HTTP {status}: {self.message}"[:300])


@dataclass
class _Response:
    headers: Any


class EndpointUnsupportedError(ModelError):
    """The endpoint does not speak this API (404 / 405 / 501 / "unsupported endpoint"): try the next one."""


@dataclass
class Failure:
    """One failed request, classified."""

    kind: str  # "HTTP 429", "connection error", "timeout", "malformed response"
    retryable: bool
    status: int | None = None
    message: str = ""
    retry_after: float | None = None
    unsupported: bool = False
    context_length: bool = False

    def error(self, protocol: str, endpoint: str, secret: str | None, note: str = "") -> ModelError:
        """The typed error ending the call (``note``: e.g. how many retries were made)."""
        text = f"{protocol} request to {endpoint} failed: {self.kind}"
        if self.message:
            text += f": {self.message}"
        text = scrub(text + note, secret)
        if self.context_length:
            return ContextLengthExceededError(text, endpoint=endpoint, status=self.status)
        if self.unsupported:
            return EndpointUnsupportedError(text, endpoint=endpoint, status=self.status)
        if self.retryable:
            return ModelRetryableError(text, endpoint=endpoint, status=self.status)
        return ModelError(text, endpoint=endpoint, status=self.status)


def scrub(text: str, secret: str | None) -> str:
    """``text`` without ``secret`` (the call's key) nor any secret the run registered (the client's credentials:
    an endpoint may quote a request's headers back in its error)."""
    from agentcompass.redaction import scrub_known

    return scrub_known(text, "<redacted>", [secret] if secret and len(secret) >= 4 else None)


def _mro_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def describe(exc: BaseException) -> Failure | None:
    """Classify ``exc``; None when it is not a transport or API failure (then it propagates as is)."""
    names = _mro_names(exc)
    if names & {"APIStatusError", "UpstreamStatus"} or _google_status(exc, names):
        return _status_failure(exc)
    if "APITimeoutError" in names:
        return Failure("timeout", True)
    if "APIConnectionError" in names:
        return Failure("connection error", True, message=_cause_text(exc))
    if "TimeoutException" in names:  # the transport's own, raised while a streamed body is read
        return Failure("timeout", True)
    if isinstance(exc, TimeoutError) or "ServerTimeoutError" in names:  # aiohttp's connect / read timeouts
        return Failure("timeout", True)
    if names & {"TransportError", "StreamError", "ClientConnectionError", "ClientPayloadError"}:
        return Failure("connection error", True, message=f"{type(exc).__name__}: {exc}"[:200])
    if isinstance(exc, json.JSONDecodeError) or names & {"APIResponseValidationError", "ValidationError"}:
        return Failure("malformed response", True, message=str(exc).splitlines()[0][:200] if str(exc) else "")
    return None


def _cause_text(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    return f"{type(cause).__name__}: {cause}"[:200] if cause is not None else ""


def _google_status(exc: BaseException, names: set[str]) -> bool:
    """A ``google-genai`` SDK status error (``APIError`` with ``code``)."""
    return (
        "APIError" in names
        and type(exc).__module__.startswith("google.")
        and isinstance(getattr(exc, "code", None), int)
    )


def _status_failure(exc: Any) -> Failure:
    status = int(getattr(exc, "status_code", 0) or getattr(exc, "code", 0) or 0)
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    body = getattr(exc, "body", None) if hasattr(exc, "body") else getattr(exc, "details", None)
    message = provider_message(body) or str(getattr(exc, "message", ""))
    should = str(headers.get("x-should-retry", "")).lower()
    retryable = status in RETRY_STATUSES or (status >= 500 and status != 501)
    if should in ("true", "false"):
        retryable = should == "true"
    context = status in (400, 413, 422) and bool(_CONTEXT.search(message))
    unsupported = status in (404, 405, 501) or (status == 400 and bool(_UNSUPPORTED.search(message)))
    return Failure(
        f"HTTP {status}",
        retryable and not context,
        status,
        message[:300],
        retry_after_s(headers),
        unsupported and not context,
        context,
    )


def provider_message(body: Any) -> str:
    """The human-readable message of an OpenAI / Anthropic error body (or the body as text)."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            msg, code = inner.get("message"), inner.get("status") or inner.get("code") or inner.get("type")
            if msg:
                return f"{msg} ({code})" if code else str(msg)
        elif isinstance(inner, str):
            return inner
        return json.dumps(body)[:300]
    return "" if body is None else str(body)[:300]


def retry_after_s(headers: Any) -> float | None:
    """Seconds asked by ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date); None when absent or not
    a usable wait (NaN, infinite, negative, unparsable): the caller then uses its own backoff."""
    try:
        value = headers.get("retry-after-ms")
        if value is not None:
            return _usable(float(value) / 1000.0)
        value = headers.get("retry-after")
    except (AttributeError, ValueError):
        return None
    if value is None:
        return None
    try:
        return _usable(float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _usable(seconds: float) -> float | None:
    return seconds if math.isfinite(seconds) and seconds >= 0 else None
