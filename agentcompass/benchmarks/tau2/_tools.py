"""τ²-bench tool definitions (name, type, OpenAI function schema), built at run time from the reference's source.

``load_tool_specs(source, "tau2.domains.airline.tools", "AirlineTools")`` reads the toolkit class with :mod:`ast`
and returns one :class:`ToolSpec` per method decorated ``@is_tool(...)`` / ``@is_discoverable_tool(...)``, in the
order the reference's ``ToolKitType`` lists them (the class's own tools in definition order, then those of its
toolkit bases). Each schema is computed as ``tau2.environment.tool.Tool`` does: the signature's parameters
(annotations evaluated in the tools module's namespace, literal defaults) and the docstring parsed by
``docstring_parser`` give ``create_model("parameters", ...)``, whose ``model_json_schema()`` is the ``parameters``;
the description is the short description, plus a blank line and the long one when there is one.
"""

from __future__ import annotations

import ast
import enum
from dataclasses import dataclass
from typing import Any

from agentcompass.benchmarks.tau2._source import SourceModule, SourceTree, Tau2SourceError
from agentcompass.benchmarks.tau2.shapes import ToolSchema

__all__ = ["EMPTY", "ToolParam", "ToolSpec", "ToolType", "load_tool_specs"]

TOOL_DECORATORS = ("is_tool", "is_discoverable_tool")
BASE_TOOLKIT = "ToolKitBase"


class ToolType(enum.StrEnum):
    """The reference's ``ToolType``: what a tool does (read, write, think, generic)."""

    READ = "read"
    WRITE = "write"
    THINK = "think"
    GENERIC = "generic"


class _Empty:
    def __repr__(self) -> str:
        return "EMPTY"


EMPTY: Any = _Empty()  # no annotation / no default (``inspect.Parameter.empty``)


@dataclass(frozen=True)
class ToolParam:
    """One parameter of a tool method (``self`` excluded): its name, annotation and default (or :data:`EMPTY`)."""

    name: str
    annotation: Any
    default: Any


@dataclass(frozen=True)
class ToolSpec:
    """A tool of a toolkit as the reference defines it."""

    name: str
    tool_type: ToolType
    mutates_state: bool
    discoverable: bool
    params: tuple[ToolParam, ...]
    docstring: str | None
    short_desc: str
    long_desc: str
    parameters_model: Any  # the pydantic model ``create_model("parameters", ...)``

    @property
    def description(self) -> str:
        if not self.short_desc:
            return self.name
        return self.short_desc + "\n\n" + self.long_desc if self.long_desc else self.short_desc

    @property
    def openai_schema(self) -> ToolSchema:
        """``Tool.openai_schema`` of the reference."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters_model.model_json_schema(),
            },
        }


def load_tool_specs(source: SourceTree, dotted: str, class_name: str) -> list[ToolSpec]:
    """The tools of toolkit class ``class_name`` of module ``dotted``, in the reference's order."""
    module = source.module(dotted)
    node = module.class_node(class_name)
    specs = {spec.name: spec for spec in _own_specs(module, node)}
    for base in node.bases:
        if not isinstance(base, ast.Name) or base.id == BASE_TOOLKIT:
            continue
        base_module, base_name = _where_defined(module, base.id)
        for spec in load_tool_specs(source, base_module.dotted, base_name):
            specs.setdefault(spec.name, spec)
    return list(specs.values())


def _where_defined(module: SourceModule, name: str) -> tuple[SourceModule, str]:
    """The module whose ``class`` statement defines ``name`` as seen from ``module`` (following ``from`` imports)."""
    for stmt in module.tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == name:
            return module, name
        if isinstance(stmt, ast.ImportFrom) and (stmt.module or "").startswith("tau2"):
            for alias in stmt.names:
                if (alias.asname or alias.name) == name:
                    return _where_defined(module.source_tree.module(stmt.module or ""), alias.name)
    raise Tau2SourceError(f"{module.path}: toolkit base class {name} not found")


def _own_specs(module: SourceModule, node: ast.ClassDef) -> list[ToolSpec]:
    specs = []
    for stmt in node.body:
        if not isinstance(stmt, ast.FunctionDef):
            continue
        decorator = next((d for d in stmt.decorator_list if _decorator_name(d) in TOOL_DECORATORS), None)
        if decorator is not None:
            specs.append(_spec(module, stmt, decorator))
    return specs


def _decorator_name(node: ast.expr) -> str:
    func = node.func if isinstance(node, ast.Call) else node
    return func.id if isinstance(func, ast.Name) else ""


def _spec(module: SourceModule, func: ast.FunctionDef, decorator: ast.expr) -> ToolSpec:
    tool_type, mutates = _decorator_arguments(module, decorator)
    docstring = ast.get_docstring(func, clean=False)  # ``func.__doc__`` as Python 3.12 keeps it
    params = _params(module, func)
    short, long, model = _parse_data(params, docstring)
    return ToolSpec(
        name=func.name,
        tool_type=tool_type,
        mutates_state=mutates,
        discoverable=_decorator_name(decorator) == "is_discoverable_tool",
        params=params,
        docstring=docstring,
        short_desc=short,
        long_desc=long,
        parameters_model=model,
    )


def _decorator_arguments(module: SourceModule, node: ast.expr) -> tuple[ToolType, bool]:
    """``is_tool(tool_type=ToolType.READ, mutates_state=None)``: mutates_state defaults to ``tool_type == WRITE``."""
    args: list[ast.expr] = list(node.args) if isinstance(node, ast.Call) else []
    keywords = {kw.arg: kw.value for kw in node.keywords} if isinstance(node, ast.Call) else {}
    type_node = args[0] if args else keywords.get("tool_type")
    tool_type = ToolType.READ
    if type_node is not None:
        if not (isinstance(type_node, ast.Attribute) and type_node.attr in ToolType.__members__):
            raise module.error(node, f"tool type {ast.unparse(type_node)!r}")
        tool_type = ToolType[type_node.attr]
    mutates_node = args[1] if len(args) > 1 else keywords.get("mutates_state")
    mutates = module.literal(mutates_node) if mutates_node is not None else None
    return tool_type, (tool_type == ToolType.WRITE) if mutates is None else bool(mutates)


def _params(module: SourceModule, func: ast.FunctionDef) -> tuple[ToolParam, ...]:
    spec = func.args
    if spec.vararg or spec.kwarg or spec.posonlyargs:
        raise module.error(func, f"tool {func.name} with *args, **kwargs or positional-only parameters")
    positional = spec.args[1:]  # the bound method's signature has no ``self``
    defaults: list[Any] = [EMPTY] * (len(positional) - len(spec.defaults)) + [module.literal(d) for d in spec.defaults]
    params = [_param(module, arg, default) for arg, default in zip(positional, defaults, strict=True)]
    for arg, kw_default in zip(spec.kwonlyargs, spec.kw_defaults, strict=True):
        params.append(_param(module, arg, EMPTY if kw_default is None else module.literal(kw_default)))
    return tuple(params)


def _param(module: SourceModule, arg: ast.arg, default: Any) -> ToolParam:
    annotation = EMPTY if arg.annotation is None else module.eval(arg.annotation)
    return ToolParam(arg.arg, annotation, default)


def _parse_data(params: tuple[ToolParam, ...], docstring: str | None) -> tuple[str, str, Any]:
    """``Tool.parse_data`` of the reference, as far as the schema goes: descriptions and the parameters model."""
    from docstring_parser import parse
    from pydantic import Field, create_model

    doc = parse(docstring or "")
    doc_param = {p.arg_name: p for p in doc.params}
    fields: dict[str, Any] = {}
    for param in params:
        annotation, default = param.annotation, param.default
        if default is EMPTY:
            default = ...
        if param.name in doc_param:
            default = Field(default, description=doc_param[param.name].description)
            if annotation is EMPTY and doc_param[param.name].type_name is not None:
                annotation = doc_param[param.name].type_name
        fields[param.name] = (Any if annotation is EMPTY else annotation, default)
    model = create_model("parameters", **fields)
    return doc.short_description or "", doc.long_description or "", model
