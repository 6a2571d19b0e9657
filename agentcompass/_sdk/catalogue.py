"""What can be run: every bundled component with its one-line description and where its data comes from
(:func:`list_components`, ``agentcompass list``), the task ids of a benchmark (:func:`list_tasks`), and the
README's benchmark table made from the same rows (:func:`benchmarks_table`).

The source of truth is ``conf/<kind>/<id>.yaml``: the first sentence of a file's leading comment is the
component's description; a benchmark's data source is read from its fields (hub dataset and revision, task
repository and commit, Harbor registry dataset, local path, or bundled). Task counts are those of the last
load with default parameters, cached in ``<data_dir>/catalogue/task_counts.json``; bundled and generated
benchmarks are counted by the listing itself.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Required, TypedDict

KINDS = {"benchmarks": "benchmark", "harnesses": "harness", "environments": "environment", "models": "model"}
COUNTS_FILE = Path("catalogue") / "task_counts.json"
_OFFLINE = ("bundled:", "generated in process")  # sources whose tasks are counted by a listing itself
_SENTENCE_END = re.compile(r"(?<!e\.g)(?<!i\.e)\.(?:\s|$)")


def description(path: Path) -> str:
    """The first sentence of the file's leading comment block."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    text = " ".join(x for x in lines if x)
    m = _SENTENCE_END.search(text)
    return text[: m.start() + 1] if m else text


def title(text: str) -> str:
    """A description's name part: the text before its first parenthesis or colon."""
    return re.split(r"\s*[(:]", text, maxsplit=1)[0].strip().rstrip(".")


def _short(revision: Any) -> str:
    text = str(revision)
    return text[:12] if re.fullmatch(r"[0-9a-f]{40}", text) else text


def data_source(cfg: dict[str, Any]) -> str:
    """Where a benchmark's tasks come from, read from its composed fields."""
    if cfg.get("dataset_path"):
        return f"local: {cfg['dataset_path']}"
    if cfg.get("dataset"):
        where = cfg.get("registry_path") or "Harbor's registry"
        return f"harbor: {cfg['dataset']} ({where})"
    if cfg.get("dataset_name"):
        rev = f"@{_short(cfg['revision'])}" if cfg.get("revision") else ""
        return f"hub: {cfg['dataset_name']}{rev} ({cfg.get('split', 'test')})"
    if cfg.get("repo_url"):
        sub = f" {cfg['subdir']}/" if cfg.get("subdir") else ""
        return f"git: {cfg['repo_url']}@{_short(cfg.get('revision') or 'HEAD')}{sub}"
    target = str(cfg.get("_target_") or "")
    if target.endswith("DemoBenchmark"):
        return "bundled: agentcompass/benchmarks/demo_tasks"
    if target.endswith("BfclMultiTurnBenchmark"):
        return "package: bfcl-eval==2026.3.23 (installed with --no-deps; extra bfcl)"
    if target.endswith("AgentDojoBenchmark"):
        return "package: agentdojo==0.1.35 (installed with --no-deps; extra agentdojo)"
    if "dataset_path" in cfg:
        return "yours: dataset_path, dataset (Harbor's registry) or repo_url"
    return "generated in process"


def _composed(kind: str, ident: str) -> dict[str, Any]:
    """The component's YAML with its ``defaults`` chain merged (files of the same folder, in order)."""
    import yaml

    from agentcompass._config import component_file

    raw = yaml.safe_load(component_file(kind, ident).read_text(encoding="utf-8")) or {}
    merged: dict[str, Any] = {}
    for entry in raw.pop("defaults", []) or []:
        if isinstance(entry, str) and entry != "_self_":
            merged.update(_composed(kind, entry))
    merged.update(raw)
    return merged


def _counts(data_dir: str | Path | None) -> dict[str, int]:
    from agentcompass._config import data_dir as resolve

    path = resolve(str(data_dir) if data_dir else None) / COUNTS_FILE
    try:
        return {k: int(v) for k, v in json.loads(path.read_text()).items()}
    except (OSError, ValueError, AttributeError):
        return {}


def remember_count(benchmark: str, n_tasks: int, data_dir: str | Path | None = None) -> None:
    """Record the task count of ``benchmark`` (a load with default parameters) for ``list benchmarks``."""
    from agentcompass._config import data_dir as resolve
    from agentcompass.kit import write_atomic

    path = resolve(str(data_dir) if data_dir else None) / COUNTS_FILE
    counts = _counts(data_dir)
    counts[benchmark] = n_tasks
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(dict(sorted(counts.items())), indent=1) + "\n")


class AgentListing(TypedDict, total=False):
    """What a published agent program's harness lists (its ``listing()``)."""

    version: str
    protocols: list[str]
    cached: bool | None  # its build for this host's platform is in the cache (None: there is none)
    model_params: dict[str, str]  # key -> what it becomes


class ComponentRow(AgentListing, total=False):
    """A row of ``agentcompass list``: a bundled component, with a benchmark's task count (None: not counted
    yet) or an agent program's listing."""

    id: Required[str]
    title: Required[str]
    description: Required[str]
    source: Required[str]  # a benchmark's data source, else the component's class
    n_tasks: int | None


def _agent_program(ident: str, cfg: dict[str, Any], data_dir: str | Path | None) -> AgentListing:
    """A published agent program's ``version``, ``protocols`` and ``cached`` (its build for this host's platform is
    in ``<data_dir>/agents``); nothing for other harnesses."""
    from agentcompass._config import build, import_target
    from agentcompass._config import data_dir as resolve
    from agentcompass.interfaces import ComponentContext

    try:
        if not hasattr(import_target(str(cfg.get("_target_"))), "listing"):
            return {}
        ctx = ComponentContext(data_dir=resolve(str(data_dir) if data_dir else None), harness_id=ident)
        info: AgentListing = build("harness", cfg, ctx).listing()
        return info
    except Exception:  # a harness that cannot be built here (a missing extra) is listed without them
        return {}


def list_components(kind: str, *, data_dir: str | Path | None = None) -> list[ComponentRow]:
    """Rows ``{id, title, description, source, n_tasks}`` of every bundled component of ``kind`` (benchmarks,
    harnesses, environments, models); ``source`` is a benchmark's data source or a component's class;
    ``n_tasks`` (benchmarks) is the cached count of the last default load, else None. A published agent program's
    row also has ``version``, ``protocols`` and ``cached`` (:func:`_agent_program`)."""
    from agentcompass._config import component_file, list_ids
    from agentcompass.errors import ConfigError

    if kind not in KINDS:
        raise ConfigError(f"agentcompass list: unknown kind {kind!r}; valid: {', '.join([*KINDS, 'tasks'])}")
    group = KINDS[kind]
    counts = _counts(data_dir) if group == "benchmark" else {}
    rows: list[ComponentRow] = []
    for ident in list_ids(group):
        cfg = _composed(group, ident)
        source = data_source(cfg) if group == "benchmark" else str(cfg.get("_target_") or "none")
        text = description(component_file(group, ident))
        row: ComponentRow = {"id": ident, "title": title(text), "description": text, "source": source}
        if group == "harness":
            program = _agent_program(ident, cfg, data_dir)
            if program:  # the listing's fields, in its order
                row["version"], row["protocols"] = program["version"], program["protocols"]
                row["cached"], row["model_params"] = program["cached"], program["model_params"]
        if group == "benchmark":
            row["n_tasks"] = counts.get(ident)
            if row["n_tasks"] is None and source.startswith(_OFFLINE):  # counted here: no download, no network
                row["n_tasks"] = len(load_tasks(ident, data_dir=data_dir))
        rows.append(row)
    return rows


def list_tasks(
    benchmark: str, *, benchmark_params: dict[str, Any] | None = None, data_dir: str | Path | None = None
) -> list[str]:
    """The task ids of ``benchmark`` (its data is fetched as a run would); the count of a load with default
    parameters is cached for :func:`list_components`."""
    tasks = load_tasks(benchmark, benchmark_params=benchmark_params, data_dir=data_dir)
    if not benchmark_params:
        remember_count(benchmark, len(tasks), data_dir)
    return [t.id for t in tasks]


def load_tasks(
    benchmark: str,
    *,
    benchmark_params: dict[str, Any] | None = None,
    data_dir: str | Path | None = None,
    harness: str = "oracle",
    environment: str = "docker",
) -> list[Any]:
    """Compose the benchmark as a request would, build it alone and load its tasks."""
    from agentcompass._config import build
    from agentcompass._config import data_dir as resolve
    from agentcompass.interfaces import ComponentContext

    from .evaluate import compose_from_kwargs

    kw: dict[str, Any] = {"benchmark": benchmark, "harness": harness, "model": "none", "environment": environment}
    if benchmark_params:
        kw["benchmark_params"] = benchmark_params
    if data_dir:
        kw["data_dir"] = str(data_dir)
    resolved = compose_from_kwargs(kw)
    ctx = ComponentContext(
        data_dir=resolve(resolved.config.runtime.data_dir),
        benchmark_id=benchmark,
        harness_id=harness,
        environment_id=environment,
        model_id="none",
    )
    tasks: list[Any] = build("benchmark", resolved.data["benchmark"], ctx).load()
    return tasks


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;")


def benchmarks_table() -> str:
    """The README's benchmark table (Markdown), made from :func:`list_components` rows."""
    lines = ["| id | benchmark | data |", "|---|---|---|"]
    for row in list_components("benchmarks"):
        lines.append(f"| `{row['id']}` | {_cell(row['title'])} | {_cell(row['source'])} |")
    return "\n".join(lines) + "\n"
