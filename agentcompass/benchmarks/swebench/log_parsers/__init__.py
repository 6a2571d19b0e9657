"""Test-log parsers: the text between the eval markers -> ``{test id: status}``, one module per language family.

The parser names (``parse_log_pytest``, ``parse_log_gotest``...) are the keys SWE-bench datasets use in their
``log_parser`` column and the spec tables use per repository, so a 5.x-style dataset names its parser directly.
Every parser is called as ``parser(log, ctx)``; ``ctx`` (:class:`ParseContext`: instance id, version) matters to
the few runners whose output differs per instance (jekyll, immutable-js, Fusion Next, Lighthouse).
Statuses: PASSED FAILED SKIPPED ERROR XFAIL.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from . import javascript as js
from . import javascript_suites as js_suites
from . import managed, native
from . import python as py
from .base import ERROR, FAILED, PASSED, SKIPPED, STATUSES, XFAIL, ParseContext, Parser

__all__ = ["ERROR", "FAILED", "PARSER_REGISTRY", "PASSED", "SKIPPED", "STATUSES", "XFAIL", "ParseContext", "get_parser"]


def _uniform(fn: Callable[..., dict[str, str]]) -> Parser:
    """``fn`` called as ``(log, ctx=None)`` whether or not it reads the context."""
    if len(inspect.signature(fn).parameters) == 2:
        return lambda log, ctx=None: fn(log, ctx)
    return lambda log, ctx=None: fn(log)


_PYTHON = {
    "parse_log_pytest": py.parse_log_pytest,
    "parse_log_pytest_options": py.parse_log_pytest_options,
    "parse_log_pytest_v2": py.parse_log_pytest_v2,
    "parse_log_django": py.parse_log_django,
    "parse_log_sympy": py.parse_log_sympy,
    "parse_log_seaborn": py.parse_log_seaborn,
    "parse_log_matplotlib": py.parse_log_matplotlib,
    # per-repository names used by SWE-bench datasets
    "parse_log_astroid": py.parse_log_pytest,
    "parse_log_flask": py.parse_log_pytest,
    "parse_log_marshmallow": py.parse_log_pytest,
    "parse_log_pvlib": py.parse_log_pytest,
    "parse_log_pyvista": py.parse_log_pytest,
    "parse_log_sqlfluff": py.parse_log_pytest,
    "parse_log_xarray": py.parse_log_pytest,
    "parse_log_pydicom": py.parse_log_pytest_options,
    "parse_log_requests": py.parse_log_pytest_options,
    "parse_log_pylint": py.parse_log_pytest_options,
    "parse_log_astropy": py.parse_log_pytest_v2,
    "parse_log_scikit": py.parse_log_pytest_v2,
    "parse_log_sphinx": py.parse_log_pytest_v2,
}
_NAMED_IN_MODULES = {
    js: "calypso chart_js marked p5js react_pdf carbon jest jest_json vitest karma tap immutable_js",
    js_suites: "bpmn_js eslint grommet highlightjs lighthouse next openlayers prismjs quarto_cli",
    native: "redis jq doctest micropython_test googletest gotest cargo",
    managed: "maven ant gradle_custom phpunit minitest cucumber ruby_unit rspec_transformed_json jekyll",
}
_SHORT = {
    "pytest": "parse_log_pytest",
    "pytest_options": "parse_log_pytest_options",
    "pytest_v2": "parse_log_pytest_v2",
}
_SHORT |= {"django": "parse_log_django", "sympy": "parse_log_sympy"}

_FUNCTIONS: dict[str, Callable[..., dict[str, str]]] = dict(_PYTHON)
for _module, _names in _NAMED_IN_MODULES.items():
    _FUNCTIONS |= {f"parse_log_{n}": getattr(_module, f"parse_log_{n}") for n in _names.split()}
_FUNCTIONS |= {short: _FUNCTIONS[full] for short, full in _SHORT.items()}

PARSER_REGISTRY: dict[str, Parser] = {name: _uniform(fn) for name, fn in _FUNCTIONS.items()}


def get_parser(name: str) -> Parser:
    """The parser registered under ``name``; an unknown name is a ValueError listing the valid ones."""
    try:
        return PARSER_REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown log parser {name!r}; valid: {', '.join(sorted(PARSER_REGISTRY))}") from None
