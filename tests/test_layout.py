"""tests/ mirrors agentcompass/: a folder holding tests is a package (or module) of agentcompass, a test module at
the top is a top-level module's; only the package-wide checks and the fixtures sit elsewhere."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "agentcompass"
FIXTURES = {"data"}  # task fixtures and a plug-in package, not tests of a module
PACKAGE_WIDE = {"test_import_rules.py", "test_layout.py"}  # checks over every module


def _mirrors(folder: Path) -> bool:
    rel = folder.relative_to(ROOT / "tests")
    return (PACKAGE / rel).is_dir() or (PACKAGE / rel).with_suffix(".py").is_file()


def test_every_test_folder_is_a_package_of_agentcompass():
    folders = [
        p
        for p in (ROOT / "tests").rglob("*")
        if p.is_dir() and any(p.glob("test_*.py")) and not set(p.relative_to(ROOT / "tests").parts) & FIXTURES
    ]
    stray = sorted(str(p.relative_to(ROOT)) for p in folders if not _mirrors(p))
    assert not stray, f"test folders with no agentcompass package of that name: {stray}"


def test_every_top_level_test_module_is_a_top_level_modules():
    tops = sorted(p.name for p in (ROOT / "tests").glob("test_*.py"))
    mirrored = {n for n in tops if (PACKAGE / n.removeprefix("test_")).is_file()}
    mirrored |= {n for n in tops if (PACKAGE / n.removeprefix("test_").removesuffix(".py")).is_dir()}  # a package
    stray = [n for n in tops if n not in PACKAGE_WIDE and n not in mirrored]
    assert not stray, f"top-level test modules of no top-level agentcompass module: {stray}"
