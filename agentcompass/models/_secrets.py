"""The credentials of a model client, kept out of everything the model layer writes.

A client's credentials are its API key (``api_key``, or the key read from the environment), every value of its
``params`` under a credential name (``api_key`` in the body, ``extra_headers`` such as ``Authorization``,
``X-Auth-Key``, ``api-key``, ``Cookie``, any ``*key*`` / ``*token*`` / ``*secret*`` / ``*auth*`` header; the
token of ``Bearer <token>`` and the values of ``name=<value>`` pairs too) and the password of a URL with user
info. They are registered for the run's log redaction when the client is made, and every line of
``model_calls.jsonl``, every stored reply of the response cache and every canonical request (the cache key,
replay's comparison) goes through this module: parameters are masked by position (:func:`request_params`), text
by value (:meth:`Credentials.scrub`). The endpoint still receives every value: only what is written changes.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from agentcompass.redaction import credential_values, mask, register_secret, scrub_known

MARK = "<redacted>"
_MIN_LEN = 6  # shorter values (and the placeholder key "EMPTY") are not hidden by value: too many false hits


def request_params(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` as written and as compared: credential-named values, header values (but harmless ones such as
    Content-Type) and URL user info replaced by :data:`MARK`. The same input always gives the same output."""
    return mask(params, MARK) if params else params


class Credentials:
    """The credential values of one client and its forks (the gateway adds its attempt tokens)."""

    def __init__(self, values: set[str] | None = None) -> None:
        self._values: set[str] = set()
        self._lock = threading.Lock()
        for value in values or ():
            self.add(value)

    @classmethod
    def of_config(cls, config: Any) -> Credentials:
        """The credentials of a ``ModelConfig`` (registered for log redaction too)."""
        tree = {"api_key": config.api_key, "params": config.params, "base_url": config.base_url or ""}
        return cls(credential_values(tree))

    def add(self, value: str | None) -> None:
        if value and len(value) >= _MIN_LEN and value != "EMPTY":
            register_secret(value)
            with self._lock:
                self._values.add(value)

    def values(self) -> list[str]:
        with self._lock:
            return list(self._values)

    def scrub(self, text: str) -> str:
        """``text`` without any of these credentials nor any secret the run registered (replaced by MARK)."""
        return scrub_known(text, MARK, self.values())

    def scrub_json(self, value: Any) -> Any:
        """``value`` (JSON) with every credential in its strings replaced (the same object when there is none)."""
        text = json.dumps(value, ensure_ascii=False, default=str)
        clean = self.scrub(text)
        return value if clean == text else json.loads(clean)
