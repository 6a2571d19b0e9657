"""Component ids are file names in ``conf/<group>/``; classes are reached through ``_target_``."""

from __future__ import annotations

import dataclasses
import functools
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from agentcompass._config.redact import secret_name
from agentcompass.errors import ConfigError, UnknownComponentError
from agentcompass.interfaces import Benchmark, ComponentContext, EnvironmentProvider, Harness, ModelClient


@dataclass(frozen=True)
class Components:
    """The four built components of one request, by group (the field names ARE the config groups)."""

    benchmark: Benchmark
    harness: Harness
    model: ModelClient | None  # None: the ``none`` model
    environment: EnvironmentProvider


GROUPS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Components))  # the one list of groups


ENTRY_POINT_GROUP = "agentcompass.plugins"


def conf_dir() -> Path:
    """The config tree shipped with the package (``conf/`` at the repository root)."""
    return Path(__file__).resolve().parent.parent / "conf"


@functools.cache
def plugin_conf_dirs() -> tuple[Path, ...]:
    """The config trees contributed by installed packages through the ``agentcompass.plugins`` entry-point
    group (docs/plugins.md): each entry point names a directory (a ``str`` / ``Path``, or a callable returning
    one) holding ``benchmark/``, ``harness/``, ``model/``, ``environment/`` and ``recipe/`` folders, whose
    files' ``_target_`` name the package's own classes. Read once per process."""
    from importlib.metadata import entry_points

    dirs = []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            value = ep.load()
            path = Path(value() if callable(value) else value)
        except Exception as exc:
            raise ConfigError(f"plug-in {ep.name!r} ({ep.value}) cannot be loaded: {exc}") from exc
        if not path.is_dir():
            raise ConfigError(f"plug-in {ep.name!r} ({ep.value}): {str(path)!r} is not a config directory")
        dirs.append(path.resolve())
    return tuple(dirs)


def conf_dirs() -> tuple[Path, ...]:
    """The bundled config tree, then each plug-in's."""
    return (conf_dir(), *plugin_conf_dirs())


def component_file(group: str, ident: str) -> Path:
    """The file defining component ``ident`` of ``group`` (bundled or a plug-in's)."""
    for root in conf_dirs():
        path = root / group / f"{ident}.yaml"
        if path.is_file():
            return path
    raise UnknownComponentError(group, ident, list_ids(group))


def list_ids(group: str) -> list[str]:
    """Valid ids of a config group, sorted; a plug-in's id that is already taken is a ConfigError."""
    owner: dict[str, Path] = {}
    for root in conf_dirs():
        folder = root / group
        for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else ():
            if path.stem in owner:
                raise ConfigError(
                    f"{group} id {path.stem!r} is defined twice: {owner[path.stem]} and {path} (a plug-in may not "
                    "reuse an id)"
                )
            owner[path.stem] = path
    return sorted(owner)


def check_id(group: str, value: str) -> None:
    if value not in list_ids(group):
        raise UnknownComponentError(group, value, list_ids(group))


def import_target(target: str) -> Any:
    """Import ``package.module.Name``; a bad path is a config error naming it."""
    module_name, _, attr = target.rpartition(".")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"_target_ {target!r} cannot be imported: {exc}") from exc


MORE_HINT = "--log-level DEBUG lists them all"


def more(n: int, noun: str = "problem") -> str:
    """``" (and 2 more problems; --log-level DEBUG lists them all)"``, or "" for none."""
    return f" (and {n} more {noun}{'s' if n != 1 else ''}; {MORE_HINT})" if n > 0 else ""


def _one(err: Any, where: str, valid_keys: list[str] | None) -> str:
    key = ".".join(str(p) for p in err.get("loc", ())) or "(root)"
    if err.get("type") == "extra_forbidden":
        valid = f"; valid keys: {', '.join(valid_keys)}" if valid_keys else ""
        return f"{where}: unknown key {key!r}{valid}"
    value = err.get("input")
    shown = repr(value) if not isinstance(value, dict) else "{...}"
    if any(secret_name(str(part)) for part in err.get("loc", ())):
        shown = f"<a {type(value).__name__}, not shown>"  # a secret given in the wrong type is still a secret
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return f"{where}: {key}={shown}: {' '.join(str(err.get('msg', 'invalid value')).split())}"


def validation_lines(exc: ValidationError, where: str, valid_keys: list[str] | None = None) -> list[str]:
    """Every problem of a pydantic error, one line each (only the first names the valid keys)."""
    errors = exc.errors()
    return [_one(err, where, valid_keys if i == 0 else None) for i, err in enumerate(errors)]


def validation_message(exc: ValidationError, where: str, valid_keys: list[str] | None = None) -> str:
    """One line from a pydantic error: the key, the value given and what is allowed; then how many more
    problems there are (:func:`validation_error` keeps them all)."""
    return _one(exc.errors()[0], where, valid_keys) + more(exc.error_count() - 1)


def validation_error(
    exc: ValidationError, where: str, valid_keys: list[str] | None = None, cls: type[ConfigError] = ConfigError
) -> ConfigError:
    """The ConfigError of a pydantic error: one line, every problem in ``details``."""
    return cls(validation_message(exc, where, valid_keys), details=validation_lines(exc, where, valid_keys))


def _keys_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The valid keys of the (nested) model an error's location points into."""
    for part in loc[:-1]:
        field = model.model_fields.get(str(part))
        annotation = field.annotation if field is not None else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            break
        model = annotation
    return sorted(model.model_fields)


def validate(model: type[BaseModel], data: dict[str, Any], where: str) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        keys = _keys_at(model, tuple(exc.errors()[0].get("loc", ())))
        raise validation_error(exc, where, keys) from None


def validate_component(group: str, cfg: dict[str, Any]) -> None:
    """Validate a component's config against its class without building it (for early, clear errors)."""
    cfg = dict(cfg)
    target = cfg.pop("_target_", None)
    ident = cfg.get("id", group) if group == "model" else cfg.pop("id", group)
    if target is None:
        return
    config_cls = getattr(import_target(target), "config_class", None)
    if config_cls is not None:
        validate(config_cls, cfg, f"{group} {ident!r}")


def build_components(data: dict[str, Any], ctx: ComponentContext) -> Components:
    """Every component of a request's composed config (``data``), built in group order; the model client learns
    whether the harness needs it (``ctx.model_required``)."""
    from agentcompass.interfaces import REQUIRES_MODEL

    built: dict[str, Any] = {}
    for group in GROUPS:
        own = ctx
        if group == "model" and "harness" in built:
            own = dataclasses.replace(ctx, model_required=bool(REQUIRES_MODEL.of(built["harness"])))
        built[group] = build(group, data[group], own)
    return Components(**built)


def build(group: str, cfg: dict[str, Any], ctx: ComponentContext) -> Any:
    """Build a component: ``cls(cls.config_class.model_validate(rest), ctx)``.

    ``cfg`` is the composed config of the group (``_target_`` plus fields); ``ctx`` a ComponentContext.
    A ``_target_`` of null builds nothing (the ``none`` model).
    """
    cfg = dict(cfg)
    target = cfg.pop("_target_", None)
    ident = cfg.get("id", group) if group == "model" else cfg.pop("id", group)
    if target is None:
        return None
    cls = import_target(target)
    config_cls = getattr(cls, "config_class", None)
    if config_cls is None:
        raise ConfigError(f"{group} {ident!r}: {target} has no config_class")
    config = validate(config_cls, cfg, f"{group} {ident!r}")
    obj = cls(config, ctx)
    if group != "model":
        obj.id = ident
    return obj
