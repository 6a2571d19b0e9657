"""τ²-bench's pydantic data models, built at run time from the reference's own source (never imported).

``load_models(source, "tau2.domains.airline.data_model")`` reads that module with :mod:`._source` and returns a
:class:`DomainModels`: every class the module defines, in source order, with the same field order, types, defaults,
descriptions, docstrings and ``model_config`` as the reference, so that ``model_dump()`` and
``model_json_schema()`` are identical. Base classes come from where the source imports them (``DB`` from
``tau2/environment/db.py``, ``BaseModelNoExtra`` from ``tau2/utils/pydantic_utils.py``).

A class body may hold a docstring, annotated fields (``name: T`` or ``name: T = Field(...)`` / a literal),
``model_config = ConfigDict(...)`` and methods (skipped: behaviour the tools need is reimplemented in Python in
the domain modules). ``class X(str, Enum)`` with literal members builds an enumeration. Anything else raises
:class:`~._source.Tau2SourceError` naming the file and line.
"""

from __future__ import annotations

import ast
import enum
import hashlib
import json
import types
from dataclasses import dataclass
from typing import Any

from agentcompass.benchmarks.tau2._source import SourceModule, SourceTree, Tau2SourceError

__all__ = ["DomainModels", "Tau2SourceError", "build_class", "dict_hash", "load_models", "update_model_with_dict"]

MODULE = "agentcompass.benchmarks.tau2.models"  # the __module__ of every built class


@dataclass(frozen=True)
class DomainModels:
    """The classes of one data-model module (``classes``: name -> class, source order) and its module, whose
    ``get(name)`` / ``eval(node)`` resolve type aliases too."""

    module: SourceModule
    classes: dict[str, type]

    def __getitem__(self, name: str) -> Any:
        return self.module.get(name)

    def models(self) -> dict[str, type]:
        """The pydantic model classes only (no enumerations)."""
        from pydantic import BaseModel

        return {n: c for n, c in self.classes.items() if isinstance(c, type) and issubclass(c, BaseModel)}


def load_models(source: SourceTree, dotted: str) -> DomainModels:
    """Build every class of module ``dotted`` (e.g. ``tau2.domains.retail.data_model``)."""
    module = source.module(dotted)
    return DomainModels(module, {name: module.get(name) for name in module.names("class")})


def build_class(module: SourceModule, node: ast.ClassDef) -> type:
    """The class a ``class`` statement of ``module`` defines: a pydantic model or an enumeration."""
    from pydantic import BaseModel

    if node.keywords or node.decorator_list:
        raise module.error(node, f"class {node.name} with keywords or decorators")
    bases = tuple(module.eval(base) for base in node.bases)
    if any(isinstance(b, type) and issubclass(b, enum.Enum) for b in bases):
        return _build_enum(module, node, bases)
    if not bases or not all(isinstance(b, type) and issubclass(b, BaseModel) for b in bases):
        raise module.error(node, f"class {node.name} that is neither a pydantic model nor an Enum")
    namespace: dict[str, Any] = {"__module__": MODULE, "__qualname__": node.name, "__doc__": _docstring(node)}
    annotations: dict[str, Any] = {}
    for stmt in _body(node):
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.simple:
            annotations[stmt.target.id] = module.eval(stmt.annotation)
            if stmt.value is not None:
                namespace[stmt.target.id] = _field_value(module, stmt.value)
        elif _is_config(stmt):
            namespace["model_config"] = module.eval(_assign(stmt).value)
        else:
            raise module.error(stmt, f"statement {type(stmt).__name__} in the body of class {node.name}")
    namespace["__annotations__"] = annotations
    return types.new_class(node.name, bases, {}, lambda ns: ns.update(namespace))


def _build_enum(module: SourceModule, node: ast.ClassDef, bases: tuple[Any, ...]) -> type:
    members: list[tuple[str, Any]] = []
    for stmt in _body(node):
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        if not isinstance(target, ast.Name):
            raise module.error(stmt, f"statement {type(stmt).__name__} in the body of enum {node.name}")
        members.append((target.id, module.literal(_assign(stmt).value)))

    def body(ns: dict[str, Any]) -> None:
        ns["__module__"], ns["__qualname__"] = MODULE, node.name
        if _docstring(node) is not None:
            ns["__doc__"] = _docstring(node)
        for key, value in members:
            ns[key] = value  # the enum namespace registers members through __setitem__

    return types.new_class(node.name, bases, {}, body)


def _body(node: ast.ClassDef) -> list[ast.stmt]:
    """The statements of a class body that define data: no docstring, methods or ``pass``."""
    skipped = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Pass)
    body = node.body[1:] if _docstring(node) is not None else node.body
    return [stmt for stmt in body if not isinstance(stmt, skipped)]


def _docstring(node: ast.ClassDef) -> str | None:
    return ast.get_docstring(node, clean=False)  # the raw text, as ``__doc__`` holds it in Python 3.12


def _is_config(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and stmt.targets[0].id == "model_config"
    )


def _assign(stmt: ast.stmt) -> ast.Assign:
    assert isinstance(stmt, ast.Assign)
    return stmt


def _field_value(module: SourceModule, value: ast.expr) -> Any:
    if isinstance(value, ast.Call):
        if not (isinstance(value.func, ast.Name) and value.func.id == "Field"):
            raise module.error(value, f"field default {ast.unparse(value)!r}")
        return module.eval(value)
    return module.literal(value)


def dict_hash(data: Any) -> str:
    """The reference's ``get_dict_hash``: sha256 of ``json.dumps(data, sort_keys=True, default=str)``."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def _addict_merge(base: dict[str, Any], update: dict[str, Any]) -> None:
    """``addict.Dict.update``: recursive where both sides are dicts, replacement elsewhere (lists included)."""
    for key, value in update.items():
        if key in base and isinstance(base[key], dict) and isinstance(value, dict):
            _addict_merge(base[key], value)
        else:
            base[key] = value


def _plain(value: Any) -> Any:
    """A deep copy of JSON-like data with dicts inside lists and tuples copied too (addict's ``to_dict``)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


def update_model_with_dict(instance: Any, update: dict[str, Any]) -> Any:
    """The reference's ``update_pydantic_model_with_dict``: dump, merge ``update`` in as addict does, re-validate."""
    data = _plain(instance.model_dump())
    _addict_merge(data, _plain(update))
    return type(instance).model_validate(data)
