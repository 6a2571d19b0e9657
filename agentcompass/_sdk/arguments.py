"""Checking an SDK call's arguments: keyword-only, known keywords, values of the types the options table says.

The types are checked strictly (pydantic's strict mode): ``task_concurrency="4"`` is an error, not 4, and so are
``True`` for an int and ``1`` for a bool; an int is a float, and a list option takes any sequence but a string
(a tuple too). Text is parsed only where text is the input: the CLI and the config files.

A value of the wrong type is an :class:`~agentcompass.errors.ArgumentError` (a ConfigError, and a TypeError as
Python's own error for a bad call would be) naming the entry point, the keyword, the value (never a secret's) and
what is allowed, raised before anything is composed or run. A misspelt keyword or a positional argument is
Python's own TypeError: the entry points are ordinary keyword-only functions.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from agentcompass._config import Option, by_name
from agentcompass.errors import ArgumentError


def _sequences(annotation: Any) -> Any:
    """``annotation`` with every ``list[X]`` read as ``Sequence[X]`` (strict mode would refuse a tuple)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    sequence: Any = Sequence  # subscripted at run time
    if origin is list:
        return sequence[_sequences(args[0])] if args else sequence
    if origin in (typing.Union, types.UnionType):
        return typing.Union[tuple(_sequences(a) for a in args)]  # noqa: UP007 - built at run time from a tuple
    return annotation


@functools.cache
def _adapter(name: str) -> Any:
    """The validator of keyword ``name``'s value, from its row of the options table (used in strict mode)."""
    from pydantic import TypeAdapter

    return TypeAdapter(_sequences(by_name()[name].annotation))


def _shown(name: str, value: Any) -> str:
    from agentcompass._config import secret_name

    if secret_name(name):
        return f"<a {type(value).__name__}, not shown>"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _expected(annotation: Any) -> str:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return " | ".join(_expected(a) for a in typing.get_args(annotation))
    text = inspect.formatannotation(annotation)
    return text.replace("typing.", "").replace("pathlib.", "").replace("collections.abc.", "")


def _where(loc: tuple[Any, ...], value: Any) -> str:
    """``"at docker: "``: the part of a dict or list value an error points at (pydantic's union branch names
    in ``loc`` are not parts of the value and are skipped)."""
    parts: list[str] = []
    for part in loc:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, (list, tuple)) and isinstance(part, int) and part < len(value):
            value = value[part]
        else:
            continue
        parts.append(str(part))
    return f"at {'.'.join(parts)}: " if parts else ""


def check_known(name: str, kwargs: Mapping[str, object], valid: Sequence[str]) -> None:
    """Keywords given as a dict (``compose_from_kwargs``, the CLI): a key that is not one of ``valid`` is an
    ArgumentError naming it and the nearest valid keyword (a call of the functions gets Python's own TypeError)."""
    unknown = sorted(k for k in kwargs if k not in valid)
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], list(valid), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ArgumentError(
            f"{name}(): got an unexpected keyword argument {unknown[0]!r}{hint}; valid keywords: " + ", ".join(valid)
        )


def check_values(name: str, kwargs: Mapping[str, object], entry: str) -> None:
    """Each given value (None: not given) of the type its row of the options table says for ``entry``
    (``run`` or ``launch``): the one check of an SDK call's keywords, made when its typed request is built."""
    rows = by_name()
    for key, value in kwargs.items():
        if value is None or key not in rows:
            continue
        from pydantic import ValidationError

        try:
            _adapter(key).validate_python(value, strict=True)
        except ValidationError as exc:
            err = exc.errors()[0]
            msg = _where(err.get("loc", ()), value) + err.get("msg", "invalid value")
            raise ArgumentError(
                f"{name}(): {key}={_shown(key, value)}: {msg} (expected {_expected(rows[key].annotation)})"
            ) from None
        _check_narrower(name, rows[key], value, entry)


def _check_narrower(name: str, row: Option, value: Any, entry: str) -> None:
    """A keyword an entry point takes in a narrower type than the other (``timeout_seconds``: whole seconds for
    a single request, fractions too for ``launch``)."""
    narrow = row.annotation_for(entry)
    if narrow is int and narrow is not row.annotation and (isinstance(value, bool) or not isinstance(value, int)):
        raise ArgumentError(
            f"{row.name} must be an integer for a single request (launch also takes fractions), got {value!r}"
        )
