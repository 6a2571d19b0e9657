"""The import rules of docs/architecture.md, checked by an AST scan of every module (lazy imports included)."""

from __future__ import annotations

from pathlib import Path

from tests import import_rules

ROOT = Path(__file__).resolve().parents[1]


def test_every_import_follows_the_layering_rules():
    bad = import_rules.violations(import_rules.scan(ROOT))
    assert not bad, "imports against the rules:\n" + "\n".join(bad)


def test_no_import_cycles_among_agentcompass_modules():
    found = import_rules.cycles(import_rules.scan(ROOT))
    assert not found, "import cycles:\n" + "\n".join(import_rules.describe(c) for c in found)


def test_no_import_cycles_among_packages():
    found = import_rules.package_cycles(import_rules.scan(ROOT))
    assert not found, "package cycles:\n" + "\n".join(import_rules.describe(c) for c in found)


def test_every_package_has_a_row():
    edges = import_rules.scan(ROOT)
    plugins = {f"agentcompass.{k}" for k in import_rules.PLUGIN_KINDS}
    missing = sorted(import_rules.packages(edges) - set(import_rules.LAYERS) - plugins)
    assert not missing, f"packages without a row in tests/import_rules.py LAYERS: {missing}"
    modules = {
        import_rules.package_of(import_rules.module_name(ROOT, p)) for p in (ROOT / "agentcompass").rglob("*.py")
    }
    assert modules - set(import_rules.LAYERS) - plugins == set(), modules - set(import_rules.LAYERS) - plugins


def test_a_package_cycle_without_a_file_cycle_is_found(tmp_path):
    """_orchestrator -> _config -> _recipes -> _orchestrator.store: no module imports itself back, the packages
    do."""
    pkg = tmp_path / "agentcompass"
    for folder in ("", "_orchestrator", "_config", "_recipes"):
        (pkg / folder).mkdir(exist_ok=True)
        (pkg / folder / "__init__.py").write_text("")
    (pkg / "_orchestrator" / "request.py").write_text("from agentcompass._config import compose\n")
    (pkg / "_orchestrator" / "store.py").write_text("")
    (pkg / "_config" / "compose.py").write_text("def f():\n    from agentcompass._recipes import spec\n")
    (pkg / "_recipes" / "spec.py").write_text("from agentcompass._orchestrator.store import X\n")
    edges = import_rules.scan(tmp_path, ("agentcompass",))
    assert import_rules.cycles(edges) == []  # file-acyclic
    found = [import_rules.describe(c) for c in import_rules.package_cycles(edges)]
    assert len(found) == 1 and "agentcompass/_recipes/spec.py:1" in found[0], found
    bad = import_rules.violations(edges)
    assert any("agentcompass/_config/compose.py:2" in v for v in bad), bad  # _config may not import _recipes


def test_the_scan_sees_lazy_imports_and_reports_file_and_line(tmp_path):
    """A plug-in reaching into the core, an orchestrator importing a feature above it and a cycle closed by a
    function-level import are each reported with the offending file:line."""
    pkg = tmp_path / "agentcompass"
    for folder in ("", "benchmarks", "_orchestrator", "_analysis"):
        (pkg / folder).mkdir(exist_ok=True)
        (pkg / folder / "__init__.py").write_text("")
    (pkg / "interfaces.py").write_text("")
    (pkg / "benchmarks" / "mine.py").write_text(
        "from agentcompass.interfaces import Task\nfrom agentcompass._orchestrator import store\n"
    )
    (pkg / "_orchestrator" / "store.py").write_text("")
    (pkg / "_orchestrator" / "request.py").write_text("def finish():\n    from agentcompass._analysis import x\n")
    (pkg / "_analysis" / "x.py").write_text("import agentcompass._orchestrator.request\n")
    edges = import_rules.scan(tmp_path, ("agentcompass",))
    bad = import_rules.violations(edges)
    assert any(
        v.startswith("agentcompass/benchmarks/mine.py:2: ") and "agentcompass._orchestrator.store" in v for v in bad
    ), bad
    assert any(
        v.startswith("agentcompass/_orchestrator/request.py:2: ") and "agentcompass._analysis" in v for v in bad
    ), bad
    assert len(bad) == 2, bad
    text = [import_rules.describe(c) for c in import_rules.cycles(edges)]
    assert len(text) == 1 and "agentcompass/_orchestrator/request.py:2" in text[0], text
    assert "agentcompass/_analysis/x.py:1" in text[0], text


def test_type_checking_imports_are_not_cycles(tmp_path):
    pkg = tmp_path / "agentcompass"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from agentcompass import b\n")
    (pkg / "b.py").write_text("from agentcompass import a\n")
    assert import_rules.cycles(import_rules.scan(tmp_path, ("agentcompass",))) == []


def test_plugins_may_import_the_kit_and_nothing_else_of_the_core(tmp_path):
    pkg = tmp_path / "agentcompass"
    for folder in ("", "harnesses"):
        (pkg / folder).mkdir(exist_ok=True)
        (pkg / folder / "__init__.py").write_text("")
    for name in ("interfaces", "errors", "kit", "_deps"):
        (pkg / f"{name}.py").write_text("")
    (pkg / "harnesses" / "mine.py").write_text(
        "from agentcompass.kit import write_atomic\n"
        "from agentcompass import errors, interfaces\n\n\n"
        "def run():\n    from agentcompass._deps import require\n"
    )
    bad = import_rules.violations(import_rules.scan(tmp_path, ("agentcompass",)))
    assert len(bad) == 1 and bad[0].startswith("agentcompass/harnesses/mine.py:6: ") and "_deps" in bad[0], bad


def test_no_module_imports_another_packages_private_module():
    bad = import_rules.private_imports(import_rules.scan(ROOT))
    assert not bad, "imports of another package's private module:\n" + "\n".join(bad)


def test_a_private_module_is_its_packages_own(tmp_path):
    """gateway -> models._streams is reported (lazy import included); models -> its own _streams, a package's
    own deeper private module, the root's private layers and a front door that re-exports are not."""
    pkg = tmp_path / "agentcompass"
    for folder in ("", "models", "models/_streams", "gateway", "_config"):
        (pkg / folder).mkdir(exist_ok=True)
        (pkg / folder / "__init__.py").write_text("")
    (pkg / "models" / "_streams" / "chat.py").write_text("from agentcompass.models._streams import sse\n")
    (pkg / "models" / "_streams" / "sse.py").write_text("")
    (pkg / "models" / "wire.py").write_text("from ._streams import chat\n")
    (pkg / "models" / "client.py").write_text("from agentcompass.models._streams import chat\n")
    (pkg / "_config" / "compose.py").write_text("")
    (pkg / "gateway" / "routes.py").write_text(
        "from agentcompass.models.wire import chat\nfrom agentcompass._config import compose\n\n\n"
        "def serve():\n    from agentcompass.models._streams import sse\n"
    )
    bad = import_rules.private_imports(import_rules.scan(tmp_path, ("agentcompass",)))
    assert len(bad) == 1 and bad[0].startswith("agentcompass/gateway/routes.py:6: ") and "agentcompass.models" in bad[0]


def test_packages_are_entered_only_by_their_front_doors():
    bad = import_rules.front_door_violations(import_rules.scan(ROOT))
    assert not bad, "imports past a front door:\n" + "\n".join(bad)


def test_a_front_door_rule_catches_a_reach_inside_and_a_layer_upwards(tmp_path):
    """_view reaching into _orchestrator.record.store, record importing scheduling, metrics reaching into record's
    module, and the enclosure's own ``__init__`` are reported with file:line and the door to use; the doors
    themselves, a package's own modules and ``from <enclosure> import <door>`` are not."""
    pkg = tmp_path / "agentcompass"
    for folder in ("", "_view", "_orchestrator", "_orchestrator/record", "_orchestrator/metrics", "_config"):
        (pkg / folder).mkdir(exist_ok=True)
        (pkg / folder / "__init__.py").write_text("")
    (pkg / "_orchestrator" / "scheduling").mkdir()
    (pkg / "_orchestrator" / "scheduling" / "__init__.py").write_text("")
    (pkg / "_orchestrator" / "record" / "store.py").write_text(
        "from .result import RunResult\n\n\ndef f():\n    from ..scheduling import Pool\n"
    )
    (pkg / "_orchestrator" / "record" / "result.py").write_text("")
    (pkg / "_orchestrator" / "metrics" / "summary.py").write_text(
        "from ..record import RunResult\nfrom ..record.store import RunStore\n"
    )
    (pkg / "_config" / "registry.py").write_text("")
    (pkg / "_view" / "runs.py").write_text(
        "from agentcompass._orchestrator.record import RunStore\n"
        "from agentcompass._orchestrator import metrics\n"
        "from agentcompass._config import build\n"
        "from agentcompass._orchestrator.record.store import RunStore\n"
        "from agentcompass._config.registry import GROUPS\n"
        "from agentcompass._orchestrator import AttemptFrame\n"
    )
    bad = import_rules.front_door_violations(import_rules.scan(tmp_path, ("agentcompass",)))
    where = sorted(v.split(": ")[0] for v in bad)
    assert where == [
        "agentcompass/_orchestrator/metrics/summary.py:2",
        "agentcompass/_orchestrator/record/store.py:5",
        "agentcompass/_view/runs.py:4",
        "agentcompass/_view/runs.py:5",
        "agentcompass/_view/runs.py:6",
    ], bad
    text = "\n".join(bad)
    assert "runs.py:4: agentcompass._view.runs imports agentcompass._orchestrator.record.store; outside " in text
    assert "front door agentcompass._orchestrator.record" in text
    assert "front door agentcompass._config" in text  # runs.py:5
    assert "agentcompass._orchestrator.record may import none of its sibling layers" in text  # store.py:5


def test_a_front_door_exports_names_its_modules_define():
    """Every front door's ``__all__`` is its lazy table (or its imports), each name resolves, and none shadows one of
    the package's modules (``from pkg import name`` would hand back the module once it is imported)."""
    import importlib
    import pkgutil

    for door in import_rules.FRONT_DOORS:
        package = importlib.import_module(door)
        exports = getattr(package, "_EXPORTS", None)
        if exports is not None:
            assert sorted(package.__all__) == sorted(exports), door
        modules = {m.name for m in pkgutil.iter_modules(package.__path__)}
        assert not set(package.__all__) & modules, (door, set(package.__all__) & modules)
        for name in package.__all__:
            assert getattr(package, name) is not None, (door, name)
    for enclosure in import_rules.ENCLOSURES:
        assert not getattr(importlib.import_module(enclosure), "__all__", []), enclosure
