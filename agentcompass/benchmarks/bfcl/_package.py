"""The installed ``bfcl-eval`` package, imported lazily: its multi-turn data, function docs, API classes, checker and
the function-calling conversions of its model handlers. Nothing of it is copied here; every text and rule is read
from the package at run time.

The package is installed without its declared dependencies (``agentcompass._deps.NO_DEPS``): what is used here
imports the standard library, ``filelock`` and ``tenacity`` (the ``bfcl`` extra), except the Java and JavaScript
call parsers of ``bfcl_eval.model_handler.utils`` (tree-sitter), which multi-turn never calls. When tree-sitter is
not installed, those two parser modules are stood in for, during that one import, by modules whose parsers raise.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
import threading
import types
from pathlib import Path
from typing import Any

from agentcompass.errors import DependencyError
from agentcompass.kit import require

PACKAGE = "bfcl-eval"
VERSION = "2026.3.23"
_PARSERS = ("java_parser", "js_parser")
_lock = threading.Lock()


def bfcl(data_root: Path | None = None) -> types.ModuleType:
    """``bfcl_eval`` (installed on demand with ``--auto-install-dependencies``). ``data_root``: where the package
    may write its lock files (``BFCL_PROJECT_ROOT``, read once at its import; default: beside the package)."""
    if data_root is not None and "bfcl_eval.constants.eval_config" not in sys.modules:
        data_root.mkdir(parents=True, exist_ok=True)
        os.environ.setdefault("BFCL_PROJECT_ROOT", str(data_root))
    return require("bfcl_eval", "bfcl", purpose="benchmark bfcl_multi_turn")


def module(name: str) -> types.ModuleType:
    """``bfcl_eval.<name>``."""
    bfcl()
    return importlib.import_module(f"bfcl_eval.{name}")


@functools.cache
def handler_utils() -> types.ModuleType:
    """``bfcl_eval.model_handler.utils`` (``convert_to_tool``, ``convert_to_function_call``)."""
    bfcl()
    with _lock:
        if _has("tree_sitter"):
            return importlib.import_module("bfcl_eval.model_handler.utils")
        return _import_without_tree_sitter()


def _import_without_tree_sitter() -> types.ModuleType:
    prefix = "bfcl_eval.model_handler.parser."
    stand_ins = {p: _stand_in(prefix + p) for p in _PARSERS if prefix + p not in sys.modules}
    sys.modules.update({prefix + p: m for p, m in stand_ins.items()})
    try:
        return importlib.import_module("bfcl_eval.model_handler.utils")
    finally:
        for p in stand_ins:
            sys.modules.pop(prefix + p, None)


def _stand_in(name: str) -> types.ModuleType:
    stand_in = types.ModuleType(name)

    def unavailable(*_: Any, **__: Any) -> Any:
        raise DependencyError(f"{name} needs tree-sitter, which bfcl_multi_turn does not install")

    for attr in ("parse_java_function_call", "parse_javascript_function_call"):
        setattr(stand_in, attr, unavailable)
    return stand_in


def _has(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def openai_tools(functions: list[dict[str, object]]) -> list[dict[str, object]]:
    """The function docs as BFCL's OpenAI chat-completions handler sends them (``convert_to_tool`` with
    ``GORILLA_TO_OPENAPI`` and ``ModelStyle.OPENAI_COMPLETIONS``)."""
    enums = module("constants.enums")
    mappings = module("constants.type_mappings")
    tools = handler_utils().convert_to_tool(functions, mappings.GORILLA_TO_OPENAPI, enums.ModelStyle.OPENAI_COMPLETIONS)
    return list(tools)


def decode_calls(response: Any) -> list[str]:
    """BFCL's ``decode_execute`` of a function-calling handler: ``[{name: arguments}, ...]`` -> call strings.
    Raises what the package raises for a response that is not calls (text)."""
    return list(handler_utils().convert_to_function_call(response))


def constants() -> types.ModuleType:
    """``bfcl_eval.constants.default_prompts`` (``MAXIMUM_STEP_LIMIT``, the held-out functions' user prompt)."""
    return module("constants.default_prompts")


def multi_turn_utils() -> types.ModuleType:
    return module("eval_checker.multi_turn_eval.multi_turn_utils")


def multi_turn_checker() -> types.ModuleType:
    return module("eval_checker.multi_turn_eval.multi_turn_checker")


def forget_instances(model_name: str) -> None:
    """Drop the API instances ``execute_multi_turn_func_call`` keeps in its module's globals under names that start
    with ``model_name`` (each attempt and each grading uses a name of its own; this frees them)."""
    space = vars(multi_turn_utils())
    for key in [k for k in space if k.startswith(model_name)]:
        space.pop(key, None)


def installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(PACKAGE)
    except PackageNotFoundError:
        return "unknown"
