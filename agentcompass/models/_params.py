"""Checking and translating ``params`` (passed through to the API).

Known keys are type-checked (a wrong type is a ConfigError naming the key, the value and the expected
type). Each protocol then receives the parameter under its own name where an equivalent exists
(``max_tokens`` -> Responses ``max_output_tokens``; ``stop`` -> Anthropic ``stop_sequences``;
``reasoning_effort`` -> Responses ``reasoning.effort``); keys the SDK method does not take go into the
request body (``extra_body``), so server-specific settings (``top_k``, ``repetition_penalty``...) pass.

The large structured values of a request (the messages, the tools) reach the SDK method through
``extra_body`` too (:func:`untyped`): the method's own type-driven transform walks every value given as a
typed argument on every call, which for a long conversation costs several milliseconds of CPU, and is the
identity on the JSON values the model layer sends. ``extra_body`` is merged over the typed body by the SDK
(top level, ``extra_body`` wins), so the request on the wire is the one the typed arguments would make.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from agentcompass.errors import ConfigError

_NUM = ((int, float), "a number")
_INT = ((int,), "an integer")
_STR = ((str,), "a string")
_DICT = ((dict,), "a mapping")
_LIST = ((list,), "a list")
_BOOL = ((bool,), "true or false")
KNOWN: dict[str, tuple[tuple[type, ...], str]] = {
    "temperature": _NUM,
    "top_p": _NUM,
    "presence_penalty": _NUM,
    "frequency_penalty": _NUM,
    "repetition_penalty": _NUM,
    "min_p": _NUM,
    "top_k": _INT,
    "max_tokens": _INT,
    "max_completion_tokens": _INT,
    "max_output_tokens": _INT,
    "seed": _INT,
    "n": _INT,
    "top_logprobs": _INT,
    "stop": ((str, list), "a string or a list of strings"),
    "stop_sequences": ((list,), "a list of strings"),
    "reasoning_effort": _STR,
    "verbosity": _STR,
    "service_tier": _STR,
    "user": _STR,
    "reasoning": _DICT,
    "thinking": _DICT,
    "extra_body": _DICT,
    "extra_headers": _DICT,
    "extra_query": _DICT,
    "response_format": _DICT,
    "metadata": _DICT,
    "text": _DICT,
    "tools": _LIST,
    "tool_choice": ((str, dict), "a string or a mapping"),
    "parallel_tool_calls": _BOOL,
    "logprobs": _BOOL,
}


def check_params(params: dict[str, Any], where: str) -> dict[str, Any]:
    """Return ``params`` unchanged after checking the type of every known key."""
    for key, value in params.items():
        if not isinstance(key, str):
            raise ConfigError(f"{where}: key {key!r} must be a string")
        if value is None or key not in KNOWN:
            continue
        types, expected = KNOWN[key]
        bad = isinstance(value, bool) and bool not in types or not isinstance(value, types)
        if not bad and isinstance(value, list) and key in ("stop", "stop_sequences"):
            bad = not all(isinstance(v, str) for v in value)
        if bad:
            shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
            raise ConfigError(f"{where}: {key}={shown} has type {type(value).__name__}; expected {expected}")
    return params


_SDK_KEYS: dict[str, frozenset[str]] = {}


def sdk_keys(protocol: str, method: Callable[..., Any]) -> frozenset[str]:
    """Keyword names the SDK method accepts (cached per protocol)."""
    if protocol not in _SDK_KEYS:
        _SDK_KEYS[protocol] = frozenset(inspect.signature(method).parameters) - {"self"}
    return _SDK_KEYS[protocol]


def for_protocol(
    protocol: str, params: dict[str, Any], accepted: frozenset[str], renames: dict[str, str] | None = None
) -> dict[str, Any]:
    """Keyword arguments for the SDK method of ``protocol``: renamed (the protocol module's ``RENAMES``; a dotted
    target nests the value in the mapping of that name), unknown keys under ``extra_body``."""
    if renames is None:
        from .protocols import renames as renames_of

        renames = renames_of(protocol)
    out: dict[str, Any] = {}
    extra: dict[str, Any] = dict(params.get("extra_body") or {})
    for key, value in params.items():
        if value is None or key == "extra_body":
            continue
        key = renames.get(key, key)
        if "." in key:
            key, inner = key.split(".", 1)
            value = {**(params.get(key) or {}), inner: value}
        if key == "stop_sequences" and isinstance(value, str):
            value = [value]
        if key in accepted:
            out[key] = value
        else:
            extra[key] = value
    if extra:
        out["extra_body"] = extra
    return out


def untyped(kwargs: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` with ``values`` (messages, tools...) placed in ``extra_body``, under the user's own ``extra_body``
    keys (which win, as they would over typed arguments). Values that are None are left out."""
    extra = {k: v for k, v in values.items() if v is not None}
    if extra:
        kwargs["extra_body"] = {**extra, **(kwargs.get("extra_body") or {})}
    return kwargs
