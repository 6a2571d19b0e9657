"""One source of truth: an option's default lives in the schema, the list of component groups in the registry,
the strict config base in the schema. An AST scan of the package fails on a second copy of any of them."""

from __future__ import annotations

import ast
from pathlib import Path

from agentcompass._config import options
from agentcompass._config.registry import GROUPS, Components
from agentcompass._config.schema import RequestConfig

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = "agentcompass/_config/schema.py"


def _defaults() -> dict[str, object]:
    """Option name -> its plain schema default (str / int / float; booleans and None are too common to spot)."""
    out: dict[str, object] = {}
    for row in options.table():
        default = getattr(row.field, "default", None)
        if isinstance(default, (str, int, float)) and not isinstance(default, bool):
            out[row.name] = default
    return out


def _literal(node: ast.AST | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def _copied(name: str, value: object, defaults: dict[str, object]) -> bool:
    """``value`` written for option ``name`` copies its default (or, for an int option, invents a fallback)."""
    if name not in defaults or value is None or isinstance(value, bool):
        return False
    same = value == defaults[name] and type(value) is type(defaults[name])
    fallback = isinstance(defaults[name], int) and isinstance(value, int)
    return same or fallback


def _flags() -> dict[str, str]:
    return {row.cli: row.name for row in options.table() if row.cli}


def second_copies(root: Path, packages: tuple[str, ...] = ("agentcompass",)) -> list[str]:
    """``file:line: what`` for every copy of a default, a group list or the strict base outside their home."""
    defaults, flags, groups = _defaults(), _flags(), set(GROUPS)
    out = []
    for pkg in packages:
        for path in sorted((root / pkg).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                found = _inspect(node, rel, defaults, flags, groups)
                out += [f"{rel}:{node.lineno}: {what}" for what in found]
    return out


def _core(rel: str) -> bool:
    """A core module other than the schema (a plug-in's config fields are its own namespace)."""
    return rel != SCHEMA and rel.startswith(("agentcompass/_", "hydra_plugins/"))


def _inspect(node: ast.AST, rel: str, defaults: dict, flags: dict, groups: set) -> list[str]:
    out = []
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        values = {_literal(e) for e in node.elts}
        if groups <= values:
            out.append(f"the component groups spelled out ({ast.unparse(node)[:60]}); use registry.GROUPS")
    elif isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        args = node.args
        if name == "get" and len(args) == 2 and _copied(_literal(args[0]), _literal(args[1]), defaults):  # type: ignore[arg-type]
            out.append(f"a default of {_literal(args[0])!r} copied: {ast.unparse(node)}")
        if name == "getattr" and len(args) == 3 and _copied(_literal(args[1]), _literal(args[2]), defaults):  # type: ignore[arg-type]
            out.append(f"a default of {_literal(args[1])!r} copied: {ast.unparse(node)}")
        if name == "add_argument" and args and _literal(args[0]) in flags:
            default = next((k.value for k in node.keywords if k.arg == "default"), None)
            if _copied(flags[_literal(args[0])], _literal(default), defaults):  # type: ignore[index]
                out.append(f"the default of {_literal(args[0])} copied into argparse: {ast.unparse(node)[:80]}")
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = node.args
        pairs = list(zip(a.args[len(a.args) - len(a.defaults) :], a.defaults, strict=True))
        pairs += [(k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None]
        for arg, default in pairs:
            if _copied(arg.arg, _literal(default), defaults):
                out.append(f"a default of {arg.arg!r} copied into {node.name}(): {ast.unparse(default)}")
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _core(rel):
        value = node.value
        if isinstance(value, ast.Call) and value.args:  # Field(4, ...)
            value = value.args[0]
        if _copied(node.target.id, _literal(value), defaults):
            out.append(f"a default of {node.target.id!r} copied into a field: {ast.unparse(node)[:80]}")
    elif isinstance(node, ast.ClassDef) and _core(rel):
        body = [b for b in node.body if not (isinstance(b, ast.Expr) and isinstance(_literal(b.value), str))]
        if "Strict" in node.name or (len(body) == 1 and "model_config" in ast.unparse(body[0])):
            out.append(f"class {node.name} repeats the strict config base; use _config.schema.Strict")
    return out


def test_no_second_copy_of_a_default_a_group_list_or_the_strict_base():
    found = second_copies(ROOT, ("agentcompass", "hydra_plugins"))
    assert not found, "\n".join(found)


def test_the_scan_finds_each_kind_of_copy(tmp_path):
    pkg = tmp_path / "agentcompass" / "_mine"
    pkg.mkdir(parents=True)
    (pkg / "m.py").write_text(
        "GROUPS = ('benchmark', 'harness', 'model', 'environment')\n"
        "def f(cfg, args, p, task_concurrency=4):\n"
        "    a = cfg.get('task_concurrency', 1)\n"
        "    b = getattr(args, 'log_level', 'INFO')\n"
        "    p.add_argument('--results-dir', default='outputs')\n"
        "class Spec:\n"
        "    task_concurrency: int = Field(4, ge=1)\n"
        "class _Strict(BaseModel):\n"
        "    model_config = ConfigDict(extra='forbid')\n"
    )
    found = second_copies(tmp_path)
    lines = sorted(int(f.split(":")[1]) for f in found)
    assert lines == [1, 2, 3, 4, 5, 7, 8], found


def test_the_groups_are_the_components_fields_and_the_config_sections():
    assert GROUPS == ("benchmark", "harness", "model", "environment")
    assert set(GROUPS) == set(Components.__dataclass_fields__)
    assert set(GROUPS) <= set(RequestConfig.model_fields)
