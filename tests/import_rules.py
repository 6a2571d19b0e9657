"""An AST scan of the package's imports: who may import whom (docs/architecture.md), and import cycles.

Every ``import`` / ``from ... import`` counts, the ones inside functions too (a lazy import is still a
dependency); imports under ``if TYPE_CHECKING:`` count for the rules but not for cycles (they never run).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

PLUGIN_KINDS = ("benchmarks", "harnesses", "models", "environments")
PLUGIN_MAY_IMPORT = (
    "agentcompass.interfaces",
    "agentcompass.conversation",
    "agentcompass.errors",
    "agentcompass.kit",
    "agentcompass.redaction",
)

# package -> the agentcompass modules it may import (besides its own package); a prefix covers its submodules.
# Every package (and top-level module) of agentcompass has a row, plug-in kinds excepted (PLUGIN_MAY_IMPORT).
_CORE = (
    "agentcompass.interfaces",
    "agentcompass.conversation",
    "agentcompass.errors",
    "agentcompass.kit",
    "agentcompass.redaction",
)
LAYERS: dict[str, tuple[str, ...]] = {
    "agentcompass": (),  # the root package re-exports lazily, by name (its imports are for type checkers only)
    "agentcompass.__main__": ("agentcompass._cli",),
    "agentcompass.errors": (),
    "agentcompass.redaction": (),  # the registry of secret values and what a secret is: nothing of the package
    "agentcompass.interfaces": ("agentcompass.errors",),
    "agentcompass.conversation": ("agentcompass.interfaces", "agentcompass.errors"),
    "agentcompass._deps": ("agentcompass.interfaces", "agentcompass.errors"),
    "agentcompass.kit": ("agentcompass._deps", "agentcompass._stats", "agentcompass.interfaces", "agentcompass.errors"),
    "agentcompass._config": _CORE,
    "agentcompass._stats": (),  # pure statistics: nothing of the package
    "agentcompass._integrity": (),  # the deterministic integrity scan: pure, reads files; nothing of the package
    # its layers inside (SUBLAYERS below): the run record, then what its results say, then scheduling on top
    "agentcompass._orchestrator": ("agentcompass._config", "agentcompass._stats", "agentcompass._integrity", *_CORE),
    # the model gateway: a core service beside models/ (not a plug-in), handed to requests by the SDK
    "agentcompass.gateway": ("agentcompass.models", *_CORE),
    "agentcompass._recipes": ("agentcompass._config", "agentcompass._orchestrator", "agentcompass._deps", *_CORE),
    "agentcompass._analysis": ("agentcompass._config", "agentcompass._orchestrator", "agentcompass._stats", *_CORE),
    "agentcompass._launch": ("agentcompass._config", "agentcompass._orchestrator", *_CORE),
    "agentcompass._ray": (
        "agentcompass._orchestrator",
        "agentcompass._config",
        "agentcompass._deps",
        "agentcompass.interfaces",
        "agentcompass.errors",
    ),
    "agentcompass._export": ("agentcompass._config", "agentcompass._orchestrator", *_CORE),
    # the Compare page shows the numbers of `agentcompass compare`: one implementation, _analysis.compare
    "agentcompass._view": ("agentcompass._config", "agentcompass._orchestrator", "agentcompass._analysis", *_CORE),
    "agentcompass._sdk": (
        "agentcompass._analysis",
        "agentcompass._config",
        "agentcompass._deps",
        "agentcompass._export",
        "agentcompass._launch",
        "agentcompass._orchestrator",
        "agentcompass._ray",
        "agentcompass._recipes",
        "agentcompass._view",
        "agentcompass.environments.docker",  # images build-base: the docker provider's own builder
        "agentcompass.models.cache",  # cache stats | prune | clear: the model layer's response database
        "agentcompass.models.config",  # cache prune --older-than: the duration form of model.cache_expire_after
        "agentcompass.gateway",  # the request-scoped model gateway service (Hooks.services)
        "agentcompass.harnesses.exploit.library",  # audit --exploits: the exploit harness's list of exploits
        *_CORE,
    ),
    "agentcompass._cli": (
        "agentcompass._sdk",
        "agentcompass._config",  # its front door loads a name's module on first use: the options table, not Hydra
        "agentcompass.interfaces",
        "agentcompass.errors",
    ),
    # the plug-in example shipped as files (agentcompass/examples/plugin_pkg): a plug-in, and its tests' suites
    "agentcompass.examples": ("agentcompass.testing", *_CORE),
    "agentcompass.testing": (
        "agentcompass._sdk",
        "agentcompass._config",
        "agentcompass._orchestrator",
        "agentcompass.environments",
        "agentcompass.harnesses",
        "agentcompass.models",  # the scripted server speaks the protocols' stream shapes
        "agentcompass.gateway",  # the replay kit serves the harness under test a gateway
        *_CORE,
    ),
    "hydra_plugins.agentcompass_launcher": ("agentcompass._launch",),
}

# Layers inside a package: subpackage -> the sibling subpackages it may import (a lower layer never imports a
# higher one). A module of the package outside these subpackages is not restricted by this table.
SUBLAYERS: dict[str, tuple[str, ...]] = {
    "agentcompass._orchestrator.record": (),
    "agentcompass._orchestrator.metrics": ("agentcompass._orchestrator.record",),
    "agentcompass._orchestrator.scheduling": (
        "agentcompass._orchestrator.record",
        "agentcompass._orchestrator.metrics",
    ),
}

# Packages with a front door: what other packages (sibling subpackages included) may use is exported from the
# package's ``__init__``; its inner modules are imported only from inside the package.
FRONT_DOORS = (
    "agentcompass._config",
    "agentcompass._integrity",
    "agentcompass._orchestrator.record",
    "agentcompass._orchestrator.metrics",
    "agentcompass._orchestrator.scheduling",
    "agentcompass.interfaces",
)
# Packages reached only through the front doors inside them: they export nothing themselves.
ENCLOSURES = {"agentcompass._orchestrator": tuple(SUBLAYERS)}


def package_of(module: str) -> str:
    """The package a module belongs to for the rules: ``agentcompass.<first part>`` (a top-level module is its
    own package), the root package itself, or ``hydra_plugins.<plug-in>``."""
    parts = module.split(".")
    return ".".join(parts[:2])


@dataclass(frozen=True)
class Edge:
    source: str  # importing module
    target: str  # imported module
    file: str
    line: int
    runtime: bool  # False under `if TYPE_CHECKING:`

    def where(self) -> str:
        return f"{self.file}:{self.line}"


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def _targets(node: ast.AST, module: str, is_package: bool, known: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    assert isinstance(node, ast.ImportFrom)
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, *([base] if base else [])])
    modules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known]
    # `from pkg import submodule` depends on the submodule (the package's __init__ runs too: see _graph)
    return modules if len(modules) == len(node.names) else [base, *modules]


def scan(root: Path, packages: tuple[str, ...] = ("agentcompass", "hydra_plugins")) -> list[Edge]:
    """Every import between modules of ``packages`` under ``root``."""
    files = {module_name(root, p): p for pkg in packages for p in sorted((root / pkg).rglob("*.py"))}
    known = set(files)
    edges = []
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        guarded = _type_checking_lines(tree)
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _targets(node, module, path.name == "__init__.py", known):
                if target.split(".")[0] in packages:
                    edges.append(
                        Edge(module, target, str(path.relative_to(root)), node.lineno, node.lineno not in guarded)
                    )
    return edges


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def violations(edges: list[Edge]) -> list[str]:
    """One line per import that breaks a rule, naming file:line, the import and what is allowed."""
    out = []
    for e in edges:
        parts = e.source.split(".")
        if len(parts) > 1 and parts[0] == "agentcompass" and parts[1] in PLUGIN_KINDS:
            own = f"agentcompass.{parts[1]}"
            allowed = (own, *PLUGIN_MAY_IMPORT)
            kind = f"plug-ins ({own})"
        else:
            layer = package_of(e.source)
            if layer not in LAYERS:
                out.append(f"{e.where()}: {layer} has no row in the import rules (tests/import_rules.py)")
                continue
            allowed, kind = (layer, *LAYERS[layer]), layer
        if not any(_within(e.target, a) for a in allowed) and e.target != "agentcompass":
            out.append(f"{e.where()}: {e.source} imports {e.target}; {kind} may import only {', '.join(allowed)}")
        elif e.target == "agentcompass" and kind.startswith("plug-ins"):
            out.append(
                f"{e.where()}: {e.source} imports the agentcompass package; plug-ins may import only "
                f"{', '.join(allowed)}"
            )
    return out


def _graph(edges: list[Edge]) -> dict[str, dict[str, Edge]]:
    """source -> target -> first edge; an import also runs the target's parent packages (those that are not
    the importer's own)."""
    graph: dict[str, dict[str, Edge]] = {}
    for e in edges:
        if not e.runtime:
            continue
        parts = e.target.split(".")
        for n in range(1, len(parts) + 1):
            target = ".".join(parts[:n])
            if target != e.source and not _within(e.source, target):
                graph.setdefault(e.source, {}).setdefault(target, e)
    return graph


def cycles(edges: list[Edge]) -> list[list[Edge]]:
    """One cycle (as its edges) per strongly connected group of modules that import each other."""
    graph = _graph(edges)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_cycle_in(graph, set(g), g[0]) for g in groups]


def _cycle_in(graph: dict[str, dict[str, Edge]], group: set[str], start: str) -> list[Edge]:
    """A path start -> ... -> start inside ``group`` (breadth first, so the shortest)."""
    paths: dict[str, list[Edge]] = {start: []}
    frontier = [start]
    while frontier:
        nxt_frontier = []
        for node in frontier:
            for target, edge in sorted(graph.get(node, {}).items()):
                if target == start:
                    return paths[node] + [edge]
                if target in group and target not in paths:
                    paths[target] = paths[node] + [edge]
                    nxt_frontier.append(target)
        frontier = nxt_frontier
    raise AssertionError(f"no cycle through {start}")


def describe(cycle: list[Edge]) -> str:
    return " -> ".join([cycle[0].source, *(f"{e.target} ({e.where()})" for e in cycle)])


def package_edges(edges: list[Edge]) -> list[Edge]:
    """The imports between packages (one Edge each, the first seen), as Edges of package names."""
    seen: dict[tuple[str, str], Edge] = {}
    for e in edges:
        source, target = package_of(e.source), package_of(e.target)
        if source != target and target != "agentcompass":  # the root package imports nothing (LAYERS)
            seen.setdefault((source, target), Edge(source, target, e.file, e.line, e.runtime))
    return list(seen.values())


def package_cycles(edges: list[Edge]) -> list[list[Edge]]:
    """Cycles among packages (``_orchestrator -> _config -> _recipes -> _orchestrator``), imports under
    TYPE_CHECKING included: a package cycle is a layering fault even where no file cycle runs."""
    return cycles([Edge(e.source, e.target, e.file, e.line, True) for e in package_edges(edges)])


def packages(edges: list[Edge]) -> set[str]:
    """Every package that imports or is imported."""
    return {package_of(m) for e in edges for m in (e.source, e.target)}


def private_owner(target: str) -> str | None:
    """The package whose private module ``target`` is (``agentcompass.models`` for
    ``agentcompass.models._streams.chat``), or None for a public one. The root's own ``_`` packages
    (``agentcompass._config``) are the package's private layers, shared by the rules above."""
    parts = target.split(".")
    for i in range(2, len(parts)):
        if parts[i].startswith("_") and not parts[i].startswith("__"):
            return ".".join(parts[:i])
    return None


def private_imports(edges: list[Edge]) -> list[str]:
    """One line per import of another package's private module: a package offers others what it exports from a
    public module (its front door); its ``_`` modules are its own."""
    out = []
    for e in edges:
        owner = private_owner(e.target)
        if owner is not None and not _within(e.source, owner):
            out.append(f"{e.where()}: {e.source} imports {e.target}, a private module of {owner}")
    return out


def _door_of(target: str) -> str | None:
    """The innermost front door or enclosure ``target`` is (or is inside), or None."""
    found = [d for d in (*FRONT_DOORS, *ENCLOSURES) if _within(target, d)]
    return max(found, key=len) if found else None


def front_door_violations(edges: list[Edge]) -> list[str]:
    """One line per import that reaches inside a package with a front door from outside it (an enclosure's own
    ``__init__`` included), or that goes up the layers of SUBLAYERS: file:line, the import and what to import."""
    out = []
    for e in edges:
        door = _door_of(e.target)
        if door is not None and not _within(e.source, door) and (e.target != door or door in ENCLOSURES):
            use = " or ".join(ENCLOSURES.get(door, (door,)))
            out.append(f"{e.where()}: {e.source} imports {e.target}; outside {door} import from its front door {use}")
        for layer, below in SUBLAYERS.items():
            siblings = [s for s in SUBLAYERS if s.rsplit(".", 1)[0] == layer.rsplit(".", 1)[0] and s != layer]
            if _within(e.source, layer):
                up = [s for s in siblings if _within(e.target, s) and s not in below]
                if up:
                    out.append(
                        f"{e.where()}: {e.source} imports {e.target}; {layer} may import "
                        f"{'only ' + ', '.join(below) if below else 'none'} of its sibling layers"
                    )
    return out
