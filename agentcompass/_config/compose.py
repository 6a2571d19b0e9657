"""Compose one request config with Hydra's compose API, under one process-wide lock.

Precedence, lowest first: ``conf/config.yaml`` and the selected group files; ``config_path`` files in the
order given (appended as ``_global_`` configs); the ``config`` overlays of the enabled recipes in the order
given (appended after the files); Hydra-style ``key=value`` overrides; explicit arguments.
Dicts merge recursively; lists are replaced. In a config file (or a recipe overlay), ``<group>: <id>`` or
``<group>.id`` selects the component (the last one wins), and the file's other keys merge into it.

Which recipes apply is read from the request composed without them (``execution.enabled_recipes``,
``runtime.recipe_dirs``; a recipe cannot change them); when there are some, the request is composed again
with their overlays. The resolved config records the applied recipes under ``recipes``.
"""

from __future__ import annotations

import copy
import functools
import json
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcompass.errors import ConfigError

from . import registry
from .merge import deep_merge
from .overrides import as_append
from .schema import RequestConfig

_HYDRA_LOCK = threading.RLock()
GENERIC_MODEL = "generic"


@contextmanager
def hydra_lock() -> Iterator[None]:
    """The process-wide lock around every use of Hydra's global state (re-entrant)."""
    with _HYDRA_LOCK:
        yield


@contextmanager
def _own_global_hydra() -> Iterator[None]:
    """Compose even when the calling program runs a Hydra app of its own: its Hydra is set aside and put back,
    through GlobalHydra's public ``hydra`` / ``clear()`` / ``initialize()``."""
    from hydra.core.global_hydra import GlobalHydra

    global_hydra = GlobalHydra.instance()
    saved = global_hydra.hydra if global_hydra.is_initialized() else None
    if saved is not None:
        global_hydra.clear()
    try:
        yield
    finally:
        if saved is not None:
            GlobalHydra.instance().clear()
            GlobalHydra.instance().initialize(saved)


@dataclass
class ComposeInput:
    """Everything a request is composed from."""

    choices: dict[str, str | None] = field(default_factory=dict)  # group -> id (None: file/default)
    config_paths: Sequence[str | Path] = ()
    overrides: Sequence[str] = ()  # Hydra-style key=value strings
    explicit: dict[str, Any] = field(default_factory=dict)  # nested dict, wins over everything


@dataclass
class ResolvedRequest:
    """A composed and validated request: its typed config, the one thing it holds."""

    config: RequestConfig

    @functools.cached_property
    def data(self) -> dict[str, Any]:
        """The config as the plain dict the components are built from and the run directory records (the keys
        composed, ``_target_`` by its name; made once)."""
        return self.config.model_dump(by_alias=True, exclude_unset=True)

    @property
    def choices(self) -> dict[str, str]:
        """Each group's component id (``none`` when it has none)."""
        return {g: getattr(self.config, g).id or "none" for g in registry.GROUPS}


def _load_user_file(path: str | Path) -> dict[str, Any]:
    import yaml

    p = Path(path).expanduser()
    if not p.is_file():
        what = "is a directory, not a YAML file" if p.is_dir() else "does not exist"
        raise ConfigError(f"config file {str(path)!r} {what}")
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0]
        raise ConfigError(f"config file {str(path)!r} is not valid YAML: {first}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {str(path)!r} must hold a mapping, got {type(data).__name__}")
    return data


def _file_choices(files: list[dict[str, Any]]) -> dict[str, str]:
    """Group choices made by config files (``benchmark: demo`` or ``benchmark: {id: demo}``); last wins."""
    found: dict[str, str] = {}
    for data in files:
        for group in registry.GROUPS:
            value = data.get(group)
            if isinstance(value, str):
                data[group] = {"id": value}
                found[group] = value
            elif isinstance(value, dict) and isinstance(value.get("id"), str):
                found[group] = value["id"]
    return found


def _resolve_choices(inp: ComposeInput, files: list[dict[str, Any]]) -> tuple[dict[str, str], dict]:
    chosen = _file_choices(files)
    chosen.update({g: v for g, v in inp.choices.items() if v is not None})
    for data in files:  # a file section that selected another component than the final one is dropped
        for group, value in chosen.items():
            section = data.get(group)
            if isinstance(section, dict) and "id" in section and section["id"] != value:
                del data[group]
    extra: dict[str, Any] = {}
    model = chosen.get("model")
    if model is not None and model not in registry.list_ids("model"):
        extra = {"model": {"id": model}}
        chosen["model"] = GENERIC_MODEL
    for group, value in chosen.items():
        registry.check_id(group, value)
    return chosen, extra


_CACHE: OrderedDict[str, tuple[dict[str, Any], bool]] = OrderedDict()  # inputs -> (unresolved, interpolates)
_CACHE_SIZE = 256


def _conf_stamp() -> list[tuple[str, int, int]]:
    """What the config tree is now (each file's path, mtime, size): a changed file is a new cache key."""
    files = (p for root in registry.conf_dirs() for p in root.rglob("*.yaml"))
    return sorted((str(p), st.st_mtime_ns, st.st_size) for p in files if (st := p.stat()))


def _hydra_compose(chosen: dict[str, str], files: list[dict[str, Any]], overrides: Sequence[str]) -> dict:
    """Hydra's composition of the selected group files, the user's files (in order) and the overrides, with
    interpolations resolved now (``${oc.env:...}`` reads the environment of this call).

    Hydra composes a request in about 80 ms of CPU, most of it rebuilding its own ``hydra`` node; the same
    inputs compose to the same unresolved config, so the result is kept (by inputs and the config tree's
    state), in this process and on disk for the next ones (:mod:`.compose_cache`), and only resolved per call:
    requests sharing their components cost Hydra once.
    """
    from . import compose_cache

    stamp = [_conf_stamp(), compose_cache.code_stamp()]
    key = json.dumps([stamp, sorted(chosen.items()), files, list(overrides)], sort_keys=True, default=str)
    with _HYDRA_LOCK:
        entry = _CACHE.get(key)
        if entry is None:
            entry = compose_cache.get(key)
            if entry is None:
                unresolved = _hydra_unresolved(chosen, files, overrides)
                entry = (unresolved, "${" in json.dumps(unresolved, default=str))
                compose_cache.put(key, *entry)
            _CACHE[key] = entry
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
        else:
            _CACHE.move_to_end(key)
    unresolved, interpolates = entry
    if not interpolates:
        return copy.deepcopy(unresolved)
    from omegaconf import OmegaConf

    try:
        return OmegaConf.to_container(OmegaConf.create(copy.deepcopy(unresolved)), resolve=True)  # type: ignore[return-value]
    except Exception as exc:  # an interpolation that does not resolve
        raise ConfigError(_one_line(exc)) from None


def _hydra_unresolved(chosen: dict[str, str], files: list[dict[str, Any]], overrides: Sequence[str]) -> dict:
    """One Hydra compose (public API: ``initialize_config_dir`` + ``compose``); the user's files are in-memory
    configs of the ConfigStore, appended as ``_global_`` groups in order (later files win)."""
    from hydra import compose, initialize_config_dir
    from hydra.core.config_store import ConfigStore
    from hydra.errors import HydraException
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    store = ConfigStore.instance()
    hydra_overrides = [f"{g}={v}" for g, v in chosen.items()]
    for i, data in enumerate(files):
        store.store(group=f"_agentcompass_user{i}_", name="file", node=data, provider="agentcompass")
        hydra_overrides.append(f"+_agentcompass_user{i}_@_global_=file")
    plugins = registry.plugin_conf_dirs()
    if plugins:  # the config trees of installed plug-ins (Hydra's documented search-path override)
        hydra_overrides.append("hydra.searchpath=[" + ",".join(f"file://{d}" for d in plugins) + "]")
    hydra_overrides.extend(overrides)
    try:
        with (
            _own_global_hydra(),
            initialize_config_dir(str(registry.conf_dir()), version_base=None, job_name="agentcompass"),
        ):
            cfg = compose(config_name="config", overrides=hydra_overrides)
            return OmegaConf.to_container(cfg, resolve=False)  # type: ignore[return-value]
    except (HydraException, OmegaConfBaseException) as exc:
        appended = as_append(overrides, exc)  # an unknown key: validation names it, its group and the valid keys
        if appended is None:
            raise ConfigError(_one_line(exc)) from None
    finally:
        for i in range(len(files)):  # the user's values are not kept in Hydra's store
            store.store(group=f"_agentcompass_user{i}_", name="file", node={}, provider="agentcompass")
    return _hydra_unresolved(chosen, files, appended)


def component_config(group: str, ident: str) -> dict[str, Any]:
    """The composed config of one component id, as a request would get it (its defaults list applied,
    interpolations resolved): ``conf/<group>/<ident>.yaml`` may extend another file of its group."""
    registry.check_id(group, ident)
    return _hydra_compose({group: ident}, [], [])[group]


def _one_line(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    text = lines[0] if lines else type(exc).__name__
    return text if len(lines) < 2 or len(text) > 60 else f"{text} {lines[1]}"


def _compose_layers(inp: ComposeInput, files: list[dict[str, Any]], overlays: list[dict[str, Any]]) -> dict:
    layers = copy.deepcopy(files) + copy.deepcopy(overlays)
    chosen, model_extra = _resolve_choices(inp, layers)
    data = _hydra_compose(chosen, layers, inp.overrides)
    data = deep_merge(data, model_extra)
    return deep_merge(data, copy.deepcopy(inp.explicit))


def _enabled_recipes(data: dict[str, Any]) -> list[Any]:
    ids = (data.get("execution") or {}).get("enabled_recipes") or []
    dirs = (data.get("runtime") or {}).get("recipe_dirs") or []
    if isinstance(ids, str) or isinstance(dirs, str):
        raise ConfigError(f"execution.enabled_recipes and runtime.recipe_dirs must be lists (got {ids!r} and {dirs!r})")
    if not ids and not dirs:  # nothing to load or check
        return []
    from . import recipes

    return recipes.load([str(i) for i in ids], [str(d) for d in dirs])


_SELECTION_KEYS = {
    "execution.enabled_recipes": ("execution", "enabled_recipes"),
    "runtime.recipe_dirs": ("runtime", "recipe_dirs"),
}


def _without_recipes(inp: ComposeInput, files: list[dict[str, Any]]) -> tuple[dict, ConfigError | None]:
    """The request without recipe overlays, to learn which recipes apply. An override may name a key that only
    a recipe adds (``environment.network=...``): then compose without the overrides, apply the ones that select
    recipes, and return the original error too (re-raised when no recipe applies)."""
    try:
        return _compose_layers(inp, files, []), None
    except ConfigError as exc:
        if not inp.overrides:
            raise
        error = exc
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    try:
        parsed = OverridesParser.create().parse_overrides(list(inp.overrides))
    except HydraException:
        raise error from None
    data = _compose_layers(ComposeInput(inp.choices, inp.config_paths, (), inp.explicit), files, [])
    for override in parsed:
        where = _SELECTION_KEYS.get(override.key_or_group)
        if where is not None and not override.is_delete():
            data.setdefault(where[0], {})[where[1]] = override.value()
    deep_merge(data, copy.deepcopy(inp.explicit))
    return data, error


def compose_request(inp: ComposeInput) -> ResolvedRequest:
    """Compose, merge and validate one request. Raises ConfigError with a one-line message."""
    files = [_load_user_file(p) for p in inp.config_paths]
    data, error = _without_recipes(inp, files)
    recipes = _enabled_recipes(data)
    if error is not None and not recipes:
        raise error
    if recipes:
        data = _compose_layers(inp, files, [r.spec.config for r in recipes])
    data["recipes"] = {r.id: r.record() for r in recipes}
    try:
        return _validated(data)
    except ConfigError as exc:
        if not recipes:
            raise
        applied = ", ".join(f"{r.id} ({r.path})" for r in recipes)
        raise ConfigError(f"{exc} [recipes applied: {applied}]") from None


def with_runtime(resolved: ResolvedRequest, updates: dict[str, Any]) -> ResolvedRequest:
    """``resolved`` with ``runtime`` keys replaced by ``updates``, validated again (a bad value is a ConfigError)."""
    if not updates:
        return resolved
    data = copy.deepcopy(resolved.data)
    data.setdefault("runtime", {}).update(copy.deepcopy(updates))
    return _validated(data)


def _validated(data: dict[str, Any]) -> ResolvedRequest:
    from .registry import validate

    config = validate(RequestConfig, data, "config")
    for group in registry.GROUPS:
        registry.validate_component(group, data[group])
    return ResolvedRequest(config)
