"""The reference solution of a BFCL multi-turn task, as the agent messages the ``oracle`` harness sends: per turn,
one message with the turn's ground-truth calls (none for a turn whose ground truth is empty), then a text message
that ends the turn. A ground-truth call is a Python call expression (``mv(source='a', destination='b')``,
``sort('f')``); positional arguments are named by the API method's signature in the package, and the arguments go
through JSON as a model's do."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
from collections.abc import Callable

from agentcompass.errors import DatasetError

from . import _package
from .shapes import BfclEntry, OracleToolCall

END_OF_TURN = "Done."


def call_of(expression: str, methods: dict[str, Callable[..., object]], call_id: str) -> OracleToolCall:
    """One tool call (``{id, name, arguments}``) from a ground-truth call expression."""
    try:
        node = ast.parse(expression, mode="eval").body
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise ValueError("not a call of a function name")
        name = node.func.id
        arguments = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg is not None}
        if node.args:
            names = [p for p in inspect.signature(methods[name]).parameters if p != "self"]
            arguments.update({names[i]: ast.literal_eval(a) for i, a in enumerate(node.args)})
    except (SyntaxError, ValueError, KeyError, IndexError) as exc:
        raise DatasetError(f"ground-truth call {expression!r} cannot be sent as a tool call: {exc}") from None
    # as a model's arguments arrive: through JSON (a tuple becomes a list)
    return {"id": call_id, "name": name, "arguments": json.loads(json.dumps(arguments))}


def api_methods(involved_classes: list[str]) -> dict[str, Callable[..., object]]:
    """Method name -> function of the task's API classes (from the package's class-to-module mapping)."""
    mapping = _package.module("constants.executable_backend_config").CLASS_FILE_PATH_MAPPING
    methods: dict[str, Callable[..., object]] = {}
    for class_name in involved_classes:
        cls = getattr(importlib.import_module(mapping[class_name]), class_name)
        methods.update({n: f for n, f in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")})
    return methods


def reference_messages(entry: BfclEntry, ground_truth: list[list[str]]) -> list[dict[str, object]]:
    """The oracle's messages for a task."""
    methods = api_methods(entry["involved_classes"])
    messages: list[dict[str, object]] = []
    for t, calls in enumerate(ground_truth):
        if calls:
            tool_calls = [call_of(c, methods, f"oracle-{t}-{i}") for i, c in enumerate(calls)]
            messages.append({"role": "assistant", "content": None, "tool_calls": tool_calls})
        messages.append({"role": "assistant", "content": END_OF_TURN})
    return messages
