"""The written plug-in contract: components, declared capabilities read through one helper, and every bundled
implementation running the conformance suite of its kind."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel

from agentcompass import interfaces
from agentcompass._config.registry import GROUPS, conf_dir, import_target
from agentcompass.interfaces import CAPABILITIES, ON_HOST, Capability

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE_TESTS = [
    "tests.environments.test_conformance",
    "tests.benchmarks.test_conformance",
    "tests.benchmarks.swebench.test_conformance",
    "tests.benchmarks.agentdojo.test_oracle",
    "tests.harnesses.test_conformance",
    "tests.harnesses._installed.test_conformance",
    "tests.models.test_conformance",
]


# where a bare getattr on a component is the mechanism itself: the registry (config_class of a _target_) and
# Capability.of / Capability.problem
EXEMPT = {"agentcompass/_config/registry.py", "agentcompass/interfaces/capabilities.py"}
COMPONENT_NAMES = {"benchmark", "harness", "model", "provider", "environment", "env", "component"}


def _names(node: ast.AST) -> str:
    """The last name of an expression (``rt.model`` -> ``model``, ``self._env`` -> ``env``)."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name.lstrip("_")


def getattr_calls(root: Path, packages: tuple[str, ...], *, everything: bool = False) -> list[str]:
    """``file:line: getattr(...)`` for every getattr / hasattr call in the modules under ``packages`` that reads
    a declared capability by name or any attribute of a component (an object named benchmark, harness, model,
    provider, environment, env); ``everything``: every getattr / hasattr call."""
    capabilities = {c.name for c in CAPABILITIES}
    out = []
    for pkg in packages:
        for path in sorted((root / pkg).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel in EXEMPT:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr")
                    and len(node.args) >= 2
                ):
                    continue
                obj, attr = node.args[0], node.args[1]
                literal = attr.value if isinstance(attr, ast.Constant) else None
                if everything or literal in capabilities or _names(obj) in COMPONENT_NAMES:
                    out.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    return out


def test_the_package_reads_optional_capabilities_only_through_the_helper():
    found = getattr_calls(ROOT, ("agentcompass", "hydra_plugins"))
    assert not found, (
        "read a capability through interfaces.<CAPABILITY>.of(component), declare a new one in "
        "interfaces.CAPABILITIES, or use the protocol's own attribute:\n" + "\n".join(found)
    )


def test_the_orchestrator_uses_no_getattr_at_all():
    found = getattr_calls(ROOT, ("agentcompass/_orchestrator",), everything=True)
    assert not found, "\n".join(found)


def test_the_scan_names_file_and_line(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(
        "x = 1\n\ndef f(b, rt, o):\n    return getattr(b, 'resumable_from_submission', False)\n"
        "def g(rt):\n    return hasattr(rt.model, 'anything')\n"
        "def h(o):\n    return getattr(o, 'text', '')\n"
    )
    assert getattr_calls(tmp_path, ("pkg",)) == [
        "pkg/m.py:4: getattr(b, 'resumable_from_submission', False)",
        "pkg/m.py:6: hasattr(rt.model, 'anything')",
    ]
    assert len(getattr_calls(tmp_path, ("pkg",), everything=True)) == 3


def test_capabilities_are_declared_once_with_their_meaning():
    names = [(c.kind, c.name) for c in CAPABILITIES]
    assert len(set(names)) == len(names)
    assert {c.kind for c in CAPABILITIES} <= {"benchmark", "harness", "model", "provider", "environment"}
    assert all(len(c.doc) > 30 for c in CAPABILITIES)
    declared = {id(v) for v in vars(interfaces).values() if isinstance(v, Capability)}
    assert declared == {id(c) for c in CAPABILITIES}  # every constant is in the table
    doc = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    missing = [c.name for c in CAPABILITIES if f"`{c.name}`" not in doc and f"`{c.name}(" not in doc]
    assert not missing, f"docs/plugins.md does not describe {missing}"


def test_a_capability_applies_its_default_and_checks_its_form():
    class Bare:
        pass

    class Unset:
        on_host = None

    class Local:
        on_host = True

    class Wrong:
        on_host = "yes"
        read_head = 3

    assert (ON_HOST.of(Bare()), ON_HOST.of(Unset()), ON_HOST.of(Local()), ON_HOST.of(None)) == (
        False,
        False,
        True,
        False,
    )
    assert ON_HOST.problem(Local()) is None and ON_HOST.problem(Bare()) is None
    assert "declared: bool" in ON_HOST.problem(Wrong())
    assert "declared: a method" in interfaces.READ_HEAD.problem(Wrong())
    assert interfaces.READ_HEAD.of(Bare()) is None


def _targets() -> dict[str, dict[str, str]]:
    """group -> conf id -> _target_ (files whose defaults list names a base take the base's target)."""
    out: dict[str, dict[str, str]] = {}
    for group in GROUPS:
        raw = {p.stem: yaml.safe_load(p.read_text()) or {} for p in sorted((conf_dir() / group).glob("*.yaml"))}

        def target(cid: str, raw: dict = raw) -> str | None:
            data = raw[cid]
            if "_target_" in data:
                return data["_target_"]
            bases = [d for d in data.get("defaults", []) if isinstance(d, str) and d != "_self_"]
            return target(bases[0]) if bases else None

        out[group] = {cid: t for cid in raw if (t := target(cid))}
    return out


@pytest.mark.parametrize("group", GROUPS)
def test_every_bundled_component_has_the_construction_contract(group):
    for cid, target in _targets()[group].items():
        cls = import_target(target)
        config_class = getattr(cls, "config_class", None)
        assert isinstance(config_class, type) and issubclass(config_class, BaseModel), (cid, target)
        assert config_class.model_config.get("extra") == "forbid", f"{target}.config_class must forbid extra keys"
        params = list(inspect.signature(cls.__init__).parameters)[1:]
        assert len(params) >= 2 and params[:2] in (["config", "ctx"],), (target, params)


def _suite_classes() -> list[type]:
    for name in CONFORMANCE_TESTS:
        importlib.import_module(name)
    from agentcompass.testing.conformance import benchmark, environment, harness, model

    bases = (environment.EnvironmentSuite, benchmark.BenchmarkSuite, harness.HarnessSuite, model.ModelClientSuite)
    found, stack = [], list(bases)
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            stack.append(sub)
            if sub.__name__.startswith("Test"):
                found.append(sub)
    return found


def test_every_bundled_implementation_and_protocol_runs_its_conformance_suite():
    """Covered: a Test* subclass of its kind's suite names a conf id with its _target_ (ENVIRONMENT, BENCHMARK,
    HARNESS), or the protocol (PROTOCOL)."""
    from agentcompass.models import protocols as registry

    targets = _targets()
    named = {"environment": "ENVIRONMENT", "benchmark": "BENCHMARK", "harness": "HARNESS"}
    covered: dict[str, set[str]] = {g: set() for g in named}
    protocols = set()
    for cls in _suite_classes():
        for group, attr in named.items():
            cid = getattr(cls, attr, "")
            if cid:
                assert cid in targets[group], f"{cls.__qualname__}.{attr}={cid!r} is no conf/{group} id"
                covered[group].add(targets[group][cid])
        protocols.add(getattr(cls, "PROTOCOL", ""))
    for group in named:
        missing = sorted(set(targets[group].values()) - covered[group])
        assert not missing, f"{group} implementations without a conformance test class: {missing}"
    missing = sorted(set(registry.names()) - protocols)
    assert not missing, f"model protocols without a conformance test class: {missing}"
