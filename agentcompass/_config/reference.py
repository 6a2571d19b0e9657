"""The option reference page (``docs/options.md``), rendered from the options table.

The page is generated, never edited by hand: ``python scripts/generate.py`` writes it and
``python scripts/generate.py --check`` (run by the tests) fails when it differs from what the table says.
"""

from __future__ import annotations

import enum
import re
import types
import typing
from typing import Any

from pydantic_core import PydanticUndefined

from . import options

PAGE = "docs/options.md"
_SECTIONS = (
    ("request", "Components and their parameters", "What one request evaluates (`run` / `run_evaluation` only)."),
    ("runtime", "Runtime", "How the request or the orchestration runs (`runtime.*` in a config file)."),
    ("execution", "Execution", "How every attempt runs (`execution.*`)."),
    ("output", "Output", "Where the run directory goes (`output.*`)."),
)
_ENTRIES = {"run": "`run`", "launch": "`launch`"}
_SCOPES = {
    "top": "top-level field",
    "orchestration": "`runtime`",
    "request": "`defaults.runtime` / `requests[].runtime`",
}


def type_text(annotation: Any) -> str:
    """A Python type as it is written in source (``dict[str, int]``, ``str | Path``, ``Literal['a', 'b']``)."""
    if annotation is type(None):
        return "None"
    if annotation is Any:
        return "Any"
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_text(a) for a in args)
    if origin is typing.Literal:
        return "Literal[" + ", ".join(repr(a) for a in args) + "]"
    if origin is not None:
        name = getattr(origin, "__name__", str(origin))
        if not args:
            return name
        if name == "Callable":
            params, result = args
            inner = "..." if params is Ellipsis else "[" + ", ".join(type_text(a) for a in params) + "]"
            return f"Callable[{inner}, {type_text(result)}]"
        return f"{name}[" + ", ".join(type_text(a) for a in args) + "]"
    if isinstance(annotation, type):
        return annotation.__name__
    return re.sub(r"\b(typing|collections\.abc|pathlib)\.", "", str(annotation))


def default_text(row: options.Option) -> str:
    """The schema's default of a config field, as YAML would write it (empty for request inputs)."""
    field = row.field
    if field is None:
        return ""
    if field.default_factory is not None:
        value = field.default_factory()  # type: ignore[call-arg]
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    if value is None:
        return "`null`"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, enum.Enum):
        value = value.value
    if value == {}:
        return "`{}`"
    if value == []:
        return "`[]`"
    return f"`{value}`"


def constraint_text(row: options.Option) -> str:
    """Bounds stated by the schema (``>= 1``, ``> 0``), and the choices of a literal."""
    parts = []
    for item in getattr(row.field, "metadata", ()) or ():
        for attr, sign in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            if getattr(item, attr, None) is not None:
                parts.append(f"{sign} {getattr(item, attr)}")
    if row.choices:
        parts.append(" \\| ".join(f"`{c}`" for c in row.choices))
    return "; ".join(parts)


def _cli_text(row: options.Option) -> str:
    if row.cli is None:
        return "(SDK only)"
    if row.cli == "":
        return "positional" if row.name != "overrides" else "`key=value ...`"
    flag = row.cli + (f" {row.metavar}" if row.metavar and row.form not in ("flag", "no-flag") else "")
    if row.form == "reuse":
        flag = f"{row.cli} [{row.metavar}]"
    short = f"`{row.short} {row.metavar}`, " if row.short else ""
    repeat = " (repeatable)" if row.form in ("repeat", "keyed-int", "keyed-float") else ""
    return f"{short}`{flag}`{repeat}"


def _section_of(row: options.Option) -> str:
    return row.section if row.field is not None else "request"


def _row_line(row: options.Option) -> str:
    cells = [
        f"`{row.name}`",
        _cli_text(row),
        f"`{row.key}`" if row.key else "",
        ", ".join(_ENTRIES[e] for e in row.entries),
        f"`{type_text(row.annotation)}`".replace("|", "\\|"),
        default_text(row),
        constraint_text(row),
        row.help.replace("|", "\\|") + (f" (orchestration: {_SCOPES[row.scope]})" if row.scope else ""),
    ]
    return "| " + " | ".join(cells) + " |"


def options_markdown() -> str:
    """The whole page."""
    out = [
        "# Option reference",
        "",
        "<!-- generated from the options table (agentcompass/_config/schema.py); do not edit by hand:",
        "     python scripts/generate.py -->",
        "",
        "Every option a caller sets directly: the SDK keyword of `run_evaluation` / `async_run_evaluation` (entry",
        "`run`, also `agentcompass run` and `agentcompass config`) and of `launch` / `async_launch` (entry `launch`,",
        "also `agentcompass launch`), its command-line form, and the config key it sets. A keyword left out (or",
        "`None`) is not given: the config files and the defaults below decide. This page, the SDK signatures, the",
        "CLI's options and the orchestration file's `runtime` sections are all built from one table, so they",
        "cannot disagree.",
        "",
    ]
    header = "| keyword | CLI | config key | entry | type | default | allowed | meaning |"
    for section, title, lead in _SECTIONS:
        rows = [r for r in options.table() if _section_of(r) == section]
        out += [f"## {title}", "", lead, "", header, "|" + "---|" * 8]
        out += [_row_line(r) for r in rows]
        out.append("")
    out += [
        "Component fields (`benchmark.*`, `harness.*`, `environment.*`, `model.*`) are each component's own",
        "`config_class`: `agentcompass config BENCHMARK HARNESS MODEL` prints them all with their values.",
        "Other `execution` keys (`executor`, `ray`, `timeouts`, `artifacts`) are set through `execution_params` or",
        "a config file; see [configuration.md](configuration.md) and [scale.md](scale.md).",
        "",
    ]
    return "\n".join(out)
