"""The type stub of the public package (``agentcompass/__init__.pyi``), rendered from the options table.

At run time ``agentcompass`` re-exports its names lazily and the SDK entry points take ``**kwargs`` checked
against the table; the stub gives type checkers and IDEs the same keyword-only signatures with their types.
It is generated, never edited by hand: ``python scripts/generate.py`` writes it and ``--check`` (run by the tests)
fails when it is stale.
"""

from __future__ import annotations

import importlib
from collections import defaultdict

from . import options
from .reference import type_text

STUB = "agentcompass/__init__.pyi"
_RUN_RESULT = "RunResult"
_LAUNCH_RESULT = "OrchestrationResult"
_ORCHESTRATION = "OrchestrationSpec | Orchestration | dict[str, Any]"


def _keywords(entry: str) -> str:
    rows = options.for_entry(entry)
    typed = ((row.name, type_text(row.annotation_for(entry)).replace("'", '"')) for row in rows)
    return ",\n".join(f"    {name}: {text} | None = None" for name, text in typed)


def _imports() -> list[str]:
    package = importlib.import_module("agentcompass")
    by_module: dict[str, list[str]] = defaultdict(list)
    for name, module in package._EXPORTS.items():
        if name not in ("run_evaluation", "async_run_evaluation", "launch", "async_launch"):
            by_module[module].append(name)
    by_module["agentcompass.errors"] += list(package._ERRORS)
    lines = []
    for module in sorted(by_module):
        lines += [f"from {module} import {n} as {n}" for n in sorted(by_module[module])]
    return lines


def stub_text() -> str:
    package = importlib.import_module("agentcompass")
    exports = [*package._EXPORTS, *package._ERRORS, "__version__"]
    run, launch = _keywords("run"), _keywords("launch")
    parts = [
        "# Generated from the options table (agentcompass/_config/schema.py) by scripts/generate.py; do not edit.",
        '"""agentcompass: evaluate LLM agents (a model driven by a harness) on agentic benchmarks in sandboxes."""',
        "",
        "from collections.abc import Callable, Sequence",
        "from pathlib import Path",
        "from typing import Any, Literal",
        "",
        *_imports(),
        "",
        "__version__: str",
        "__all__ = [",
        *(f'    "{n}",' for n in exports),
        "]",
        "",
        f"def run_evaluation(\n    *,\n{run},\n) -> {_RUN_RESULT}: ...",
        f"async def async_run_evaluation(\n    *,\n{run},\n) -> {_RUN_RESULT}: ...",
        f"def launch(\n    orchestration: {_ORCHESTRATION},\n    *,\n{launch},\n) -> {_LAUNCH_RESULT}: ...",
        f"async def async_launch(\n    orchestration: {_ORCHESTRATION},\n    *,\n{launch},\n) -> {_LAUNCH_RESULT}: ...",
        "",
    ]
    return "\n".join(parts)
