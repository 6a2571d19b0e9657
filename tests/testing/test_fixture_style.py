"""Class-scoped fixtures are classmethods, in the conformance suites, the shipped plug-in example, every test and
the docs' examples: pytest 9.1 deprecates class-scoped fixtures defined as instance methods (removed in 10)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _class_scoped(decorator: ast.expr) -> bool:
    call = decorator if isinstance(decorator, ast.Call) else None
    if call is None or not ast.unparse(call.func).endswith("fixture"):
        return False
    scopes = [k.value.value for k in call.keywords if k.arg == "scope" and isinstance(k.value, ast.Constant)]
    return scopes == ["class"]


def instance_fixtures(source: str, where: str) -> list[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a docs sketch with elisions ("...") that is not Python as written
        return []
    found = []
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for fn in (n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            names = [ast.unparse(d) for d in fn.decorator_list]
            if any(_class_scoped(d) for d in fn.decorator_list) and "classmethod" not in names:
                found.append(f"{where}:{fn.lineno} {cls.name}.{fn.name}")
    return found


def test_class_scoped_fixtures_are_classmethods():
    found = []
    for folder in ("agentcompass", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            found += instance_fixtures(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    for page in sorted((ROOT / "docs").glob("*.md")):
        for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            found += instance_fixtures(block, page.name)
    assert found == [], found


def test_the_check_finds_an_instance_method_fixture():
    source = 'class T:\n    @pytest.fixture(scope="class")\n    def kw(self):\n        return {}\n'
    assert instance_fixtures(source, "x.py") == ["x.py:3 T.kw"]
