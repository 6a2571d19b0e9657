"""Reading tau2-bench's own Python source without importing it: modules parsed with :mod:`ast`, names resolved
lazily, expressions evaluated in a restricted subset.

:class:`SourceTree` maps a dotted ``tau2.*`` module name to ``<root>/src/tau2/...`` and caches one
:class:`SourceModule` per module. A module indexes its top-level statements; :meth:`SourceModule.get` resolves a
name on first use:

- ``from typing import ...`` (the names of :data:`TYPING`), ``from pydantic import BaseModel, Field, ConfigDict``,
  ``from enum import Enum``, and ``from tau2.x import Name`` (resolved in that module, lazily);
- ``Name = <expression>`` (a type alias such as ``Literal[...]`` or ``Annotated[..., Field(...)]``);
- ``class Name(...)``: a pydantic model or a ``str``/``Enum`` enumeration, built by :mod:`._models`.

Expressions (:meth:`SourceModule.eval`): constants, names, subscripts, tuples and lists, ``A | B``, and calls of
``Field`` / ``ConfigDict`` whose arguments are literals (``default_factory`` may name a class or ``list``/``dict``).
For telecom's models also: ``import datetime``, attributes (``Enum.MEMBER``, ``datetime.date``), dict displays,
calls of a model class, an enum or ``datetime.date``/``datetime.datetime``, and ``default_factory=lambda: ...``.
Anything else raises :class:`Tau2SourceError` naming the file and line, when the name that needs it is resolved.
Other statements (functions, ``if __name__ == ...``, other imports) are skipped until something asks for a name
they define, which then fails with the same error.
"""

from __future__ import annotations

import ast
import builtins
import datetime
import enum
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentcompass.errors import DatasetError

TYPING = ("Annotated", "Any", "Dict", "List", "Literal", "Optional", "Union", "Tuple", "Set")
BUILTINS = ("str", "int", "float", "bool", "list", "dict", "tuple", "set", "bytes", "type", "object")
_PENDING = object()


class Tau2SourceError(DatasetError):
    """A file of tau2-bench's source that is missing, or a construct in it that this interpreter does not support
    (the message names the file and line)."""


def _pydantic_names() -> dict[str, object]:
    from pydantic import BaseModel, ConfigDict, Field

    return {"BaseModel": BaseModel, "Field": Field, "ConfigDict": ConfigDict}


ClassBuilder = Callable[["SourceModule", ast.ClassDef], type]


class SourceTree:
    """The ``tau2`` package of a tau2-bench checkout at ``root`` (``root/src/tau2``), one parse per module.
    ``class_builder`` turns a ``class`` statement into a class (:func:`._models.build_class`; ``load_source`` there
    makes a tree with it)."""

    def __init__(self, root: Path, class_builder: ClassBuilder | None = None) -> None:
        self.root = Path(root)
        self.class_builder = class_builder
        self._modules: dict[str, SourceModule] = {}

    def path_of(self, dotted: str) -> Path:
        base = self.root / "src" / Path(*dotted.split("."))
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if path.is_file():
                return path
        raise Tau2SourceError(f"tau2-bench source module {dotted} not found under {self.root / 'src'}")

    def module(self, dotted: str) -> SourceModule:
        if dotted not in self._modules:
            self._modules[dotted] = SourceModule(self, dotted, self.path_of(dotted))
        return self._modules[dotted]


class SourceModule:
    """One parsed module: ``tree`` (its AST), ``get(name)`` (a name's value, resolved once), ``eval(node)``."""

    def __init__(self, tree: SourceTree, dotted: str, path: Path) -> None:
        self.source_tree, self.dotted, self.path = tree, dotted, path
        self.tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        self._defs: dict[str, tuple[str, Any]] = {}
        self._values: dict[str, object] = {}
        for stmt in self.tree.body:
            self._index(stmt)

    def error(self, node: ast.AST | None, what: str) -> Tau2SourceError:
        line = getattr(node, "lineno", 0)
        return Tau2SourceError(f"{self.path}:{line}: {what} (not supported by the tau2 source reader)")

    def _index(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                self._defs[alias.asname or alias.name] = ("from", (stmt, alias.name))
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                kind = "module" if alias.name in MODULES and alias.asname is None else "unsupported"
                self._defs[alias.asname or alias.name.split(".")[0]] = (kind, stmt)
        elif isinstance(stmt, ast.ClassDef):
            self._defs[stmt.name] = ("class", stmt)
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            self._defs[stmt.targets[0].id] = ("value", stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            self._defs[stmt.target.id] = ("value", stmt.value)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._defs[stmt.name] = ("unsupported", stmt)

    def names(self, kind: str) -> list[str]:
        """The names the module defines with a statement of ``kind`` (``class`` or ``value``), in source order."""
        return [name for name, (k, _) in self._defs.items() if k == kind]

    def class_node(self, name: str) -> ast.ClassDef:
        kind, node = self._defs.get(name, ("", None))
        if kind != "class":
            raise Tau2SourceError(f"{self.path}: no class {name}")
        return typing.cast(ast.ClassDef, node)

    def get(self, name: str) -> Any:
        value = self._values.get(name, None)
        if value is _PENDING:
            raise Tau2SourceError(f"{self.path}: {name} refers to itself (forward references are not supported)")
        if name in self._values:
            return value
        if name not in self._defs:
            if name in BUILTINS:
                return getattr(builtins, name)
            raise Tau2SourceError(f"{self.path}: name {name} is not defined at module level")
        self._values[name] = _PENDING
        try:
            self._values[name] = self._resolve(*self._defs[name])
        except BaseException:
            del self._values[name]
            raise
        return self._values[name]

    def _resolve(self, kind: str, node: Any) -> Any:
        if kind == "value":
            return self.eval(node)
        if kind == "class":
            if self.source_tree.class_builder is None:
                raise self.error(node, "class statement (this source tree builds no classes)")
            return self.source_tree.class_builder(self, node)
        if kind == "from":
            return self._imported(*node)
        if kind == "module":
            return MODULES[node.names[0].name]
        raise self.error(node, f"{type(node).__name__} statement")

    def _imported(self, stmt: ast.ImportFrom, name: str) -> Any:
        module = stmt.module or ""
        if stmt.level:
            raise self.error(stmt, "relative import")
        if module in ("typing", "typing_extensions") and name in TYPING:
            return getattr(typing, name)
        if module == "pydantic" and name in _pydantic_names():
            return _pydantic_names()[name]
        if module == "enum" and name == "Enum":
            return enum.Enum
        if module == "tau2" or module.startswith("tau2."):
            return self.source_tree.module(module).get(name)
        raise self.error(stmt, f"import of {name} from {module}")

    def eval(self, node: ast.expr) -> Any:
        """The value of an expression of the restricted subset (see the module docstring)."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.get(node.id)
        if isinstance(node, ast.Subscript):
            return self.eval(node.value)[self.eval(node.slice)]
        if isinstance(node, ast.Tuple):
            return tuple(self.eval(elt) for elt in node.elts)
        if isinstance(node, ast.List):
            return [self.eval(elt) for elt in node.elts]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.eval(node.left) | self.eval(node.right)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("Field", "ConfigDict"):
            args, kwargs = self.call_arguments(node)
            return self.get(node.func.id)(*args, **kwargs)
        return self._eval_more(node)

    def _eval_more(self, node: ast.expr) -> Any:
        """Attributes (``Enum.MEMBER``, ``datetime.date``), dict displays, and calls of a model class, an enum or a
        :data:`CALLABLES` constructor with such arguments (``AppStatus(app_name="messaging")``,
        ``datetime.date(2025, 1, 1)``)."""
        if isinstance(node, ast.Attribute) and not node.attr.startswith("_"):
            return getattr(self.eval(node.value), node.attr)
        if isinstance(node, ast.Dict) and None not in node.keys:
            return {self.eval(k): self.eval(v) for k, v in zip(node.keys, node.values, strict=True) if k is not None}
        if isinstance(node, ast.Call) and not any(kw.arg is None for kw in node.keywords):
            func = self.eval(node.func)
            if _constructible(func):
                args = [self.value(arg) for arg in node.args]
                return func(*args, **{str(kw.arg): self.value(kw.value) for kw in node.keywords})
        raise self.error(node, f"expression {ast.unparse(node)!r}")

    def call_arguments(self, node: ast.Call) -> tuple[list[Any], dict[str, Any]]:
        """A call's arguments, each a literal (``default_factory`` may also name a class, ``list`` or ``dict``)."""
        args = [self.literal(arg) for arg in node.args]
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise self.error(node, "**keyword arguments")
            if kw.arg == "default_factory" and isinstance(kw.value, ast.Name):
                kwargs[kw.arg] = self.get(kw.value.id)
            elif kw.arg == "default_factory" and isinstance(kw.value, ast.Lambda) and not _has_args(kw.value):
                kwargs[kw.arg] = self._factory(kw.value.body)
            else:
                kwargs[kw.arg] = self.literal(kw.value)
        return args, kwargs

    def literal(self, node: ast.expr) -> Any:
        try:
            return ast.literal_eval(node)
        except ValueError:
            if isinstance(node, (ast.Attribute, ast.Name)):  # an enum member or a module-level constant
                return self.eval(node)
            raise self.error(node, f"non-literal argument {ast.unparse(node)!r}") from None

    def value(self, node: ast.expr) -> Any:
        """A literal, or an expression of the subset (the arguments of a constructor call)."""
        try:
            return ast.literal_eval(node)
        except ValueError:
            return self.eval(node)

    def _factory(self, body: ast.expr) -> Any:
        """``default_factory=lambda: <expression>``: evaluates the expression anew at every call."""

        def factory() -> Any:
            return self.eval(body)

        return factory


MODULES = {"datetime": datetime}  # ``import <module>`` the source may use (attributes read, constructors called)
CALLABLES = (datetime.date, datetime.datetime)


def _constructible(func: Any) -> bool:
    from pydantic import BaseModel

    if func in CALLABLES:
        return True
    return isinstance(func, type) and (issubclass(func, BaseModel) or issubclass(func, enum.Enum))


def _has_args(node: ast.Lambda) -> bool:
    a = node.args
    return bool(a.posonlyargs or a.args or a.vararg or a.kwonlyargs or a.kwarg)
