"""The fail-fast circuit of a model client: a dead endpoint is found once per request, not once per attempt.

Shared by a client and all its forks (every attempt of a request). For each endpoint it counts the HTTP
requests that failed to connect at all (connection refused, DNS failure, network unreachable, connect timeout).
Once the first ``fail_fast_after`` requests have all failed that way, and no request to it ever got an answer
(any HTTP status, or a connection that was made and dropped, proves the endpoint is there), the circuit opens:
every call in flight or to come raises :class:`~agentcompass.errors.ModelEndpointDownError` at once, which stops
the request. ``fail_fast_after: 0`` turns it off.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from agentcompass.errors import ModelEndpointDownError

# transport errors raised before any byte reached the server (httpx's names, under the SDKs' APIConnectionError;
# aiohttp's, from the gateway's plain requests)
_CONNECT_FAILURES = frozenset(
    {"ConnectError", "ConnectTimeout", "ClientConnectorError", "ClientConnectorDNSError", "ConnectionTimeoutError"}
)


def connect_failure(exc: BaseException) -> str | None:
    """``"<Type>: <message>"`` of the cause when ``exc`` is a failure to connect at all, else None."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "APIConnectionError" not in names and not names & _CONNECT_FAILURES:
        return None
    cause: BaseException | None = exc
    while cause is not None:
        if {cls.__name__ for cls in type(cause).__mro__} & _CONNECT_FAILURES:
            text = str(cause).strip().splitlines()
            return f"{type(cause).__name__}: {text[0] if text else ''}".rstrip(": ")[:200]
        cause = cause.__cause__ or cause.__context__
    return None


class Circuit:
    """Per endpoint key: closed until the first ``after`` requests all failed to connect."""

    def __init__(self, after: int) -> None:
        self.after = after
        self._failures: dict[str, int] = {}
        self._reachable: set[str] = set()
        self._open: dict[str, tuple[str, str]] = {}  # key -> (endpoint, message)

    def check(self, key: str) -> None:
        """Raise the endpoint's ModelEndpointDownError when its circuit is open."""
        if key in self._open:
            endpoint, message = self._open[key]
            raise ModelEndpointDownError(message, endpoint=endpoint) from None

    def record(self, key: str, exc: BaseException | None, endpoint: Callable[[], str]) -> None:
        """Count one request's outcome (``exc`` None: it got an answer); may open the circuit."""
        if self.after <= 0 or key in self._reachable or key in self._open:
            return
        cause = connect_failure(exc) if exc is not None else None
        if cause is None:
            self._reachable.add(key)
            return
        self._failures[key] = n = self._failures.get(key, 0) + 1
        if n >= self.after:
            where = endpoint()
            self._open[key] = (
                where,
                f"model endpoint {where} is unreachable: its first {n} requests all failed "
                f"to connect ({cause}) and none ever got an answer; the request is stopped "
                f"(model fail_fast_after={self.after}; 0 turns this off)",
            )

    @contextlib.contextmanager
    def watch(self, key: str, endpoint: Callable[[], str]) -> Iterator[None]:
        """Around one HTTP request: refuse it when the circuit is open, count its outcome, and replace a connect
        failure that opens the circuit by the circuit's error."""
        self.check(key)
        try:
            yield
        except Exception as exc:
            self.record(key, exc, endpoint)
            if key not in self._open:
                raise
        else:
            self.record(key, None, endpoint)
            return
        self.check(key)  # not chained: the SDK's exception (its request carries the key) is not shown
