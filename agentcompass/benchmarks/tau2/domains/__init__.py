"""τ²-bench domains: ``load_domain(root, name)`` returns a :class:`DomainFactory`, which makes fresh environments.

``root`` is a tau2-bench checkout (``src/tau2/...`` and ``data/tau2/domains/<name>/...``). Each domain is a module
of this package (``airline``, ``retail``, ...) that defines ``DOMAIN``, a :class:`DomainSpec`: its toolkit classes
(:class:`~._base.ToolKit` subclasses), where their reference source is (:class:`KitSource`), its environment class,
how its policy is read. The factory parses the source once and reads each DB file once; every call
``factory()`` validates a new DB from the parsed data, so an attempt never sees another's writes.

    factory = load_domain(root, "airline")
    env = factory()                       # an Environment (see ._base for its API)
    factory.tasks()                       # tasks.json as a list of dicts
    factory.task_splits()                 # split_tasks.json: split name -> task ids
    factory.tool_schemas()                # the agent's tools (OpenAI function schemas)
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcompass.benchmarks.tau2._models import DomainModels, dict_hash, load_models, load_source
from agentcompass.benchmarks.tau2._source import SourceTree, Tau2SourceError
from agentcompass.benchmarks.tau2._tools import ToolSpec, load_tool_specs
from agentcompass.benchmarks.tau2.domains._base import Environment, FreshDB, ToolKit
from agentcompass.benchmarks.tau2.shapes import Tau2Task, ToolSchema

__all__ = ["DomainFactory", "DomainSpec", "KitSource", "domain_names", "load_data_file", "load_domain"]


def load_data_file(path: Path, text: str | None = None) -> Any:
    """A data file as the reference's ``load_file`` reads it, by extension: json, toml, yaml, md / txt (``text``:
    the file's content, already read)."""
    if text is None:
        text = path.read_text()
    if path.suffix == ".json":
        return json.loads(text)
    if path.suffix == ".toml":
        return tomllib.loads(text)
    if path.suffix in (".yaml", ".yml"):
        import yaml

        return yaml.safe_load(text)
    if path.suffix in (".md", ".txt"):
        return text
    raise Tau2SourceError(f"Unsupported file extension: {path}")


@dataclass(frozen=True)
class KitSource:
    """Where a toolkit is defined in the reference: the tools class, the data-model module, the DB class and the DB
    file (relative to the domain's data directory)."""

    tools_module: str
    tools_class: str
    models_module: str
    db_class: str
    db_file: str


def read_policy(data_dir: Path) -> str:
    return (data_dir / "policy.md").read_text()


@dataclass(frozen=True)
class DomainSpec:
    """A domain: its name, toolkit classes and sources, environment class and policy reader."""

    name: str
    toolkit: type[ToolKit]
    source: KitSource
    user_toolkit: type[ToolKit] | None = None
    user_source: KitSource | None = None
    environment: type[Environment] = Environment
    policy: Callable[[Path], str] = read_policy
    tasks_file: str = "tasks.json"
    supports_solo: bool = False
    options: dict[str, object] = field(default_factory=dict)  # keyword arguments of every environment


class _Kit:
    """One toolkit of a domain, loaded once: its models, tool specs and DB data."""

    def __init__(self, tree: SourceTree, data_dir: Path, cls: type[ToolKit], source: KitSource) -> None:
        self.cls = cls
        self.models: DomainModels = load_models(tree, source.models_module)
        self.specs: list[ToolSpec] = load_tool_specs(tree, source.tools_module, source.tools_class)
        cls.check_signatures(self.specs)
        self.db_class = self.models[source.db_class]
        self.db_path = data_dir / source.db_file
        self.db_text = self.db_path.read_text()
        self._data: Any = None  # the DB file parsed once, validated by every build
        self._reuse: bool | None = None  # whether builds validate ``_data`` (None: until the first build)
        self._pristine_hash: str | None = None

    def build_db(self) -> Any:
        """A DB of its own, validated anew (nothing shared with other environments). The file is parsed once: the
        validation makes every list, dict and model of the DB anew from the parsed data, which the first build
        checks; should a built DB hold any container of the parsed data, every build parses the file again."""
        if self._reuse is False:
            return self.db_class.model_validate(load_data_file(self.db_path, self.db_text))
        data = self._data if self._data is not None else load_data_file(self.db_path, self.db_text)
        db = self.db_class.model_validate(data)
        if self._reuse is None:
            self._reuse = not _shares_containers(db, data)
        self._data = data if self._reuse else None
        return db

    def pristine_hash(self) -> str:
        """The hash of a DB just built (the same for each: the data and the models are fixed), computed once."""
        if self._pristine_hash is None:
            self._pristine_hash = dict_hash(self.build_db().model_dump())
        return self._pristine_hash

    def new(self) -> ToolKit:
        """The toolkit over a DB of its own, built on first use (:class:`FreshDB`)."""
        return self.cls(FreshDB(self.build_db, self.pristine_hash), self.specs, self.models)


def _shares_containers(db: Any, data: Any) -> bool:
    """Whether a model ``db`` holds any list or dict of ``data`` (JSON data) itself, rather than a copy."""
    from pydantic import BaseModel

    ids, stack = set(), [data]
    while stack:
        item = stack.pop()
        if isinstance(item, (dict, list)):
            ids.add(id(item))
            stack.extend(item.values() if isinstance(item, dict) else item)
    stack = [db]
    while stack:
        item = stack.pop()
        if id(item) in ids:
            return True
        if isinstance(item, BaseModel):
            stack.extend(item.__dict__.values())
            stack.extend((item.__pydantic_extra__ or {}).values())
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
    return False


class DomainFactory:
    """Fresh environments of one domain (``factory()``), its tasks and its tool schemas."""

    def __init__(self, root: Path, spec: DomainSpec) -> None:
        self.root, self.spec, self.name = Path(root), spec, spec.name
        self.source = load_source(self.root)
        self.data_dir = self.root / "data" / "tau2" / "domains" / spec.name
        self.policy = spec.policy(self.data_dir)
        self._kit = _Kit(self.source, self.data_dir, spec.toolkit, spec.source)
        self._user_kit = None
        if spec.user_toolkit is not None and spec.user_source is not None:
            self._user_kit = _Kit(self.source, self.data_dir, spec.user_toolkit, spec.user_source)

    @property
    def models(self) -> DomainModels:
        return self._kit.models

    @property
    def user_models(self) -> DomainModels | None:
        return None if self._user_kit is None else self._user_kit.models

    def __call__(self, **options: Any) -> Environment:
        if options.get("solo_mode") and not self.spec.supports_solo:
            raise ValueError(f"{self.name.capitalize()} domain does not support solo mode")
        tools = self._kit.new()
        user_tools = None if self._user_kit is None else self._user_kit.new()
        kwargs = {**self.spec.options, **options}
        return self.spec.environment(self.name, self.policy, tools, user_tools, **kwargs)

    def tool_schemas(self) -> list[ToolSchema]:
        return [s.openai_schema for s in self._kit.specs if not s.discoverable]

    def user_tool_schemas(self) -> list[ToolSchema]:
        return [] if self._user_kit is None else [s.openai_schema for s in self._user_kit.specs if not s.discoverable]

    def tasks(self) -> list[Tau2Task]:
        data: list[Tau2Task] = load_data_file(self.data_dir / self.spec.tasks_file)
        return data

    def task_splits(self) -> dict[str, list[str]]:
        stem = Path(self.spec.tasks_file).stem
        data: dict[str, list[str]] = load_data_file(self.data_dir / f"split_{stem}.json")
        return data


def domain_names() -> list[str]:
    """The domains this package implements (one module each)."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def load_domain(root: Path, name: str) -> DomainFactory:
    """The factory of domain ``name`` over the tau2-bench checkout at ``root``."""
    if name not in domain_names():
        raise Tau2SourceError(f"unknown τ²-bench domain {name!r}; available: {', '.join(domain_names())}")
    module = importlib.import_module(f"{__name__}.{name}")
    return DomainFactory(root, module.DOMAIN)
