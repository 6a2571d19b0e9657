"""``--replay`` for the calls an agent made through the model gateway (requests in an API's wire form).

An agent may send requests concurrently (a side request beside its main turn) or retry one, so gateway calls are
matched by their request, not by their position: a call is answered by the first recorded gateway call of the
same task and sample, not yet used, whose canonical request (the agent's API, the path, the endpoint, the model
id, the body without ``stream`` / ``stream_options``, and the protocol it went upstream in) is the same. The
recorded reply (the endpoint's body) is served again: as it was, translated into the agent's API, or streamed
through the stream synthesizer when the agent asked for a stream; its usage is the recorded one. A recorded
failure fails again. A call that matches no recorded one is a :class:`~agentcompass.errors.ReplayMismatchError`
naming the call and the first difference from the closest recorded call not yet used; the agent gets it as an
error in its API's shape and the attempt ends with it.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from agentcompass.errors import ContextLengthExceededError, ModelError, ReplayMismatchError

from .key import first_difference, request_digest, wire_request
from .records import CanonicalRequest, RecordedCall

_ERRORS = {"ContextLengthExceededError": ContextLengthExceededError}


def replay_request(
    protocol: str, upstream: str, endpoint: str, path: str, model_id: str, body: Mapping[str, object]
) -> CanonicalRequest:
    """The canonical form a gateway call is matched on."""
    return {**wire_request(protocol, endpoint, model_id, body), "path": path, "upstream": upstream}


def wire_entry(line: dict[str, Any]) -> RecordedCall | None:
    """A recorded gateway call as replay uses it (None: not one, or one refused by a limit before it was sent,
    which the replayed attempt's own limits refuse again)."""
    req = line.get("request")
    if line.get("source") != "gateway" or not isinstance(req, dict) or not isinstance(req.get("body"), dict):
        return None
    if line.get("status") == "limit" or not line.get("upstream_protocol"):
        return None
    path = str(req.get("path") or "")
    endpoint = str(line.get("endpoint") or "")
    if path and endpoint.endswith(path):
        endpoint = endpoint[: -len(path)]
    model_id = str(req.get("model") or line.get("model") or "")
    request = replay_request(
        req.get("protocol") or "", line["upstream_protocol"], endpoint, path, model_id, req["body"]
    )
    return {
        "seq": line.get("seq", 0),
        "request": request,
        "digest": request_digest(request),
        "response": line.get("response"),
        "error": line.get("error") if line.get("status") == "error" else None,
        "http_status": line.get("http_status"),
    }


class WireReplay:
    """The recorded gateway calls of one attempt and which of them the replayed attempt has used."""

    def __init__(self, where: str, calls: list[RecordedCall]) -> None:
        self.where, self.calls = where, calls
        self.used = [False] * len(calls)
        self.n = 0  # gateway calls made by the replayed attempt
        self._lock = threading.Lock()

    def answer(self, request: CanonicalRequest) -> dict[str, Any]:
        """The recorded reply body of ``request`` (the endpoint's, in the upstream protocol); raises the recorded
        failure, or ReplayMismatchError when no recorded call not yet used asked the same."""
        digest = request_digest(request)
        with self._lock:
            self.n += 1
            n = self.n
            found = next((i for i, c in enumerate(self.calls) if not self.used[i] and c["digest"] == digest), None)
            if found is not None:
                self.used[found] = True
        if found is None:
            raise ReplayMismatchError(self._mismatch(n, request))
        recorded = self.calls[found]
        response = recorded["response"]
        raw = response.get("raw") if isinstance(response, dict) else None
        if recorded["error"] is not None or not isinstance(raw, dict):
            error = recorded["error"] or {}
            cls = _ERRORS.get(error.get("type", ""))
            message = f"{error.get('message') or 'the recorded call failed'} (replayed)"
            if cls is not None:
                raise cls(message)
            raise ModelError(message, status=recorded["http_status"] or 502, retryable=False)
        return raw

    def _mismatch(self, n: int, request: CanonicalRequest) -> str:
        where = f"--replay {self.where}: gateway request {n}"
        left = [c for i, c in enumerate(self.calls) if not self.used[i]]
        if not left:
            return f"{where} was not made by the recorded run ({len(self.calls)} gateway calls, all answered)"
        # the closest: the most top-level fields alike (API, path, endpoint, model, body), the earliest of those
        nearest = max(left, key=lambda c: sum(c["request"].get(k) == v for k, v in request.items()))
        diff = first_difference(nearest["request"], request)
        return f"{where} matches no recorded call; it differs from the closest recorded one at {diff}"
