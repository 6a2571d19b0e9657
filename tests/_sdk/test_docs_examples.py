"""The documentation's Python examples use the public API only, and its references to "the table above" point
at a table that is above."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)
IMPORT = re.compile(r"^\s*from (agentcompass[\w.]*) import \(?([\w ,]+)", re.M)


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_python_examples_import_only_the_public_api(page):
    import agentcompass

    for block in BLOCK.findall(page.read_text()):
        for module, names in IMPORT.findall(block):
            if any(part.startswith("_") for part in module.split(".")):
                pytest.fail(f"{page.name}: imports from the private {module}: {names}")
            if module == "agentcompass":
                for name in (n.strip() for n in names.split(",") if n.strip()):
                    assert name in agentcompass.__all__, f"{page.name}: {name} is not exported by agentcompass"


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_the_table_above_is_above(page):
    lines = page.read_text().splitlines()
    for i, line in enumerate(lines):
        if "table above" in line:
            assert any(ln.startswith("|") for ln in lines[:i]), f"{page.name}:{i + 1}: no table above: {line}"


EXAMPLE = ROOT / "agentcompass" / "examples" / "plugin_pkg"


def test_the_plugin_guide_shows_the_shipped_example_as_it_is():
    text = (ROOT / "docs" / "plugins.md").read_text()
    blocks = {b.split("\n", 1)[0]: b.split("\n", 1)[1] for b in re.findall(r"```(?:python|yaml)\n(.*?)```", text, re.S)}
    assert blocks["# tinyplug/benchmark.py"] == (EXAMPLE / "tinyplug" / "benchmark.py").read_text()
    shown = "# tinyplug/conf/benchmark/echo.yaml\n" + blocks["# tinyplug/conf/benchmark/echo.yaml"]
    assert shown.split("\n", 1)[1] == (EXAMPLE / "tinyplug" / "conf" / "benchmark" / "echo.yaml").read_text()
    tests = (EXAMPLE / "tests" / "test_conformance.py").read_text()
    assert blocks["# tests/test_conformance.py"] in tests
