"""The table of runtime options: SDK keyword <-> CLI option <-> config key, derived from the pydantic schema.

Every row comes from a field of :mod:`agentcompass._config.schema` marked with ``option(...)``. The argparse
options of ``agentcompass run`` / ``launch``, the check of the SDK's keyword values, the mapping of keywords into
the config, and the orchestration spec's runtime sections are built from it; the SDK signatures are written out
in :mod:`agentcompass._sdk` and held equal to it by a test.
"""

from __future__ import annotations

import functools
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from .merge import deep_merge
from .schema import ExecutionConfig, OutputConfig, RequestInputs, RuntimeConfig

_SECTIONS: tuple[tuple[str, type[BaseModel]], ...] = (
    ("runtime", RuntimeConfig),
    ("execution", ExecutionConfig),
    ("output", OutputConfig),
)


@dataclass(frozen=True)
class Option:
    """One row of the table."""

    name: str  # the SDK keyword
    key: str  # the config key it sets: "runtime.results_dir", a section ("benchmark"), or ""
    cli: str | None  # "--results-dir"; "" for a positional argument; None: SDK only
    entries: tuple[str, ...]  # entry points taking it: "run" (run_evaluation, run, config), "launch"
    form: str  # how the CLI reads it (see _form)
    annotation: Any  # the SDK keyword's type (always also accepts None: not given)
    scope: str  # runtime fields: orchestration | request | top; else ""
    path: bool  # Path values are accepted and passed on as str
    metavar: str
    help: str
    choices: tuple[str, ...] = ()
    field: FieldInfo | None = None  # the schema field (config sections only)
    short: str = ""  # a one-letter alias of the flag ("-k")
    narrower: tuple[tuple[str, Any], ...] = ()  # (entry, type): a narrower type an entry point takes

    def annotation_for(self, entry: str) -> Any:
        """The keyword's type at ``entry`` (``timeout_seconds``: int for ``run``, float for ``launch``)."""
        return dict(self.narrower).get(entry, self.annotation)

    @property
    def section(self) -> str:
        return self.key.split(".", 1)[0]


def _plain(annotation: Any) -> Any:
    """``X | None`` -> ``X``."""
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]  # noqa: UP007 - built at run time from a tuple
    return annotation


def _form(annotation: Any, given: str) -> tuple[str, tuple[str, ...]]:
    """The CLI form of a field: flag, int, number, text, choice, keyed-int, keyed-float, json-object, json-list,
    or the one given (repeat, reuse, protocol, positional)."""
    plain = _plain(annotation)
    if typing.get_origin(plain) is Literal:
        return given or "choice", tuple(typing.get_args(plain))
    if given:
        return given, ()
    if plain is bool:
        return "flag", ()
    if plain is int:
        return "int", ()
    if plain is float:
        return "number", ()
    origin, args = typing.get_origin(plain), typing.get_args(plain)
    if origin is dict and args and args[1] in (int, float):
        return f"keyed-{args[1].__name__}", ()
    if origin is dict:
        return "json-object", ()
    if origin is list:
        return "json-list", ()
    return "text", ()


def _row(name: str, field: FieldInfo, key: str, *, schema_field: bool) -> Option:
    marker = (field.json_schema_extra or {})["option"]  # type: ignore[index]
    form, choices = _form(field.annotation, marker["form"])
    cli = marker["cli"]
    if cli == "":
        cli = "" if form == "positional" else "--" + name.replace("_", "-")
    annotation = _plain(field.annotation)
    if marker["path"]:
        annotation = list[str | Path] if typing.get_origin(annotation) is list else str | Path
    return Option(
        name=name,
        key=key,
        cli=cli,
        entries=tuple(marker["entries"]),
        form=form,
        annotation=annotation,
        scope=marker["scope"],
        path=marker["path"],
        metavar=marker["metavar"],
        help=field.description or "",
        choices=choices,
        field=field if schema_field else None,
        short=marker.get("short", ""),
        narrower=tuple(marker.get("narrower", {}).items()),
    )


@functools.cache
def table() -> tuple[Option, ...]:
    """Every option, request inputs first, then runtime, execution and output fields in schema order."""
    rows = [
        _row(name, f, (f.json_schema_extra or {})["option"]["key"], schema_field=False)  # type: ignore[index]
        for name, f in RequestInputs.model_fields.items()
    ]
    for section, model in _SECTIONS:
        rows += [
            _row(name, f, f"{section}.{name}", schema_field=True)
            for name, f in model.model_fields.items()
            if isinstance(f.json_schema_extra, dict) and "option" in f.json_schema_extra
        ]
    return tuple(rows)


def for_entry(entry: str) -> tuple[Option, ...]:
    return tuple(o for o in table() if entry in o.entries)


def by_name() -> dict[str, Option]:
    return {o.name: o for o in table()}


def runtime_fields(scope: str) -> dict[str, FieldInfo]:
    """The RuntimeConfig fields an orchestration places at ``scope`` (orchestration | request | top)."""
    return {o.name: o.field for o in table() if o.section == "runtime" and o.scope == scope}  # type: ignore[misc]


def normalized(kw: dict[str, Any]) -> dict[str, Any]:
    """Keywords with None dropped (not given) and Path values turned into str."""
    rows = by_name()
    out: dict[str, Any] = {}
    for name, value in kw.items():
        if value is None:
            continue
        row = rows.get(name)
        if row is not None and row.path:
            many = typing.get_origin(row.annotation) is list
            if many and isinstance(value, (str, Path)):
                value = [value]
            value = [str(v) for v in value] if many else str(value)
        out[name] = value
    return out


def config_layer(kw: dict[str, Any]) -> dict[str, Any]:
    """The explicit-argument layer of a request's config from SDK keywords (None = not given).

    Section keywords (``benchmark_params``...) merge into their section; keyed ones (``model_base_url``,
    ``runtime.results_dir``...) set their key. Choices, config files, overrides and callbacks are not config
    values and are left to the caller.
    """
    from agentcompass.errors import ConfigError

    layer: dict[str, Any] = {}
    for row in table():
        value = kw.get(row.name)
        if value is None or not row.key or row.key.endswith(".id"):
            continue
        if row.form == "json-object" or (row.field is None and "." not in row.key):
            if not isinstance(value, dict):
                raise ConfigError(
                    f"{row.name} must be a dict (CLI: a JSON object), got {type(value).__name__}: {value!r}"
                )
        if "." in row.key:
            section, _, name = row.key.partition(".")
            layer.setdefault(section, {})[name] = value
        else:
            deep_merge(layer.setdefault(row.key, {}), value)
    return layer
