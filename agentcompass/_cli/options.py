"""argparse options built from the options table (``agentcompass._config.options``) and mapped back to SDK
keywords: one option per table row that has a CLI flag, parsed by the row's form."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from typing import Any, TypedDict

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class UsageError(Exception):
    """A command-line value that cannot be parsed (argparse prints usage and exits 2)."""


def log_level(value: str) -> str:
    upper = value.upper()
    if upper not in LEVELS:
        raise argparse.ArgumentTypeError(f"invalid level {value!r}; choose from {', '.join(LEVELS)}")
    return upper


# The parsers below are argparse types: argparse names the argument in front of their message
# (``argument --benchmark-params: invalid JSON ...``), so the message does not name it again.


def json_object() -> Callable[[str], dict[str, Any]]:
    def parse(value: str) -> dict[str, Any]:
        try:
            data = json.loads(value)
        except json.JSONDecodeError as exc:
            raise argparse.ArgumentTypeError(f"invalid JSON ({exc.msg} at char {exc.pos}): {value!r}") from None
        if not isinstance(data, dict):
            raise argparse.ArgumentTypeError(f"expected a JSON object, got {type(data).__name__}")
        return data

    return parse


def json_string_list() -> Callable[[str], list[str]]:
    def parse(value: str) -> list[str]:
        try:
            data = json.loads(value)
        except json.JSONDecodeError as exc:
            raise argparse.ArgumentTypeError(f"invalid JSON ({exc.msg}): {value!r}") from None
        if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
            raise argparse.ArgumentTypeError(f"expected a JSON array of strings, got {value!r}")
        return data

    return parse


def keyed(cast: Callable[[str], Any]) -> Callable[[str], tuple[str, Any]]:
    def parse(value: str) -> tuple[str, Any]:
        key, sep, raw = value.partition("=")
        try:
            if not sep or not key:
                raise ValueError
            return key, cast(raw)
        except ValueError:
            expected = f"PROVIDER=VALUE ({cast.__name__})"
            raise argparse.ArgumentTypeError(f"expected {expected}, got {value!r}") from None

    return parse


def protocol(value: str) -> str | list[str]:
    if value.startswith("["):
        return json_string_list()(value)
    return value.split(",") if "," in value else value


def positive_number(value: str) -> int | float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {value!r}") from None
    return int(number) if number.is_integer() else number


class ArgumentOptions(TypedDict, total=False):
    """The keywords of ``ArgumentParser.add_argument`` that say how one option is read."""

    action: str
    type: Callable[[str], Any]
    choices: Sequence[str]
    nargs: str
    const: bool
    metavar: str


def _argparse_kwargs(row: Any) -> ArgumentOptions:
    """How argparse reads one table row."""
    form = row.form
    simple: dict[str, ArgumentOptions] = {
        "flag": {"action": "store_true"},
        "no-flag": {"action": "store_false"},
        "int": {"type": int},
        "number": {"type": positive_number},
        "text": {},
        "choice": {"choices": row.choices},
        "level": {"type": log_level},
        "keyed-int": {"action": "append", "type": keyed(int)},
        "keyed-float": {"action": "append", "type": keyed(float)},
        "json-object": {"type": json_object()},
        "json-list": {"type": json_string_list()},
        "repeat": {"action": "append"},
        "protocol": {"type": protocol},
        "reuse": {"nargs": "?", "const": True},
    }
    kwargs = simple[form].copy()
    if row.metavar and kwargs.get("action") not in ("store_true", "store_false"):
        kwargs["metavar"] = row.metavar
    return kwargs


def add_table_arguments(p: argparse.ArgumentParser, entry: str) -> None:
    """One option per row of ``entry`` that has a flag (positionals are the caller's)."""
    from agentcompass._config import for_entry

    for row in for_entry(entry):
        if row.cli:
            flags = (row.cli, row.short) if row.short else (row.cli,)
            p.add_argument(*flags, dest=row.name, default=None, help=_help(row), **_argparse_kwargs(row))


def _help(row: Any) -> str:
    """The row's description, with the schema's default when it has a plain one (argparse's own is None)."""
    default = getattr(row.field, "default", None)
    plain = isinstance(default, (int, float, str)) and not isinstance(default, bool)
    return f"{row.help} (default: {default})" if plain and default != "" else row.help


def table_kwargs(args: argparse.Namespace, entry: str) -> dict[str, Any]:
    """SDK keywords of ``entry`` given on the command line (an option left out is not passed)."""
    from agentcompass._config import for_entry

    kw: dict[str, Any] = {}
    for row in for_entry(entry):
        value = getattr(args, row.name, None) if row.cli else None
        if value is None:
            continue
        if row.form.startswith("keyed-"):
            value = dict(value)
        if row.form == "reuse":
            if isinstance(value, str):
                kw["reuse_run_id"] = value
            value = True
        kw[row.name] = value
    return kw


def split_positionals(values: list[str]) -> tuple[list[str], list[str]]:
    positionals = [v for v in values if "=" not in v]
    overrides = [v for v in values if "=" in v]
    if len(positionals) > 3:
        raise UsageError(f"at most 3 positional arguments (BENCHMARK HARNESS MODEL), got {positionals}")
    return positionals, overrides


def add_request_arguments(p: argparse.ArgumentParser) -> None:
    """``run`` / ``config``: BENCHMARK HARNESS MODEL [key=value ...] and every ``run`` option of the table."""
    p.add_argument(
        "args",
        nargs="*",
        metavar="BENCHMARK HARNESS MODEL [key=value ...]",
        help="component ids (default: demo oracle none), then Hydra-style overrides",
    )
    add_table_arguments(p, "run")


def request_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """``run_evaluation`` keywords of a ``run`` / ``config`` command line."""
    positionals, overrides = split_positionals(args.args)
    kw = table_kwargs(args, "run")
    kw.update(zip(("benchmark", "harness", "model"), positionals, strict=False))
    kw["overrides"] = overrides
    return kw
