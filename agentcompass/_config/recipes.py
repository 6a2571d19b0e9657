"""Recipe files, part of composition (a recipe's ``config`` is an overlay): the format, the lookup
(``conf/recipe/`` then ``recipe_dirs``) and validation.

A recipe is ``<id>.yaml``::

    description: one line shown by error messages and docs
    config: {...}            # overlay deep-merged into the request (above files, below explicit values)
    env: [NAME, ...]         # host variables handed to hook commands (all required), or {NAME: default}
    files: {host: env_path}  # uploaded at after_open; relative host paths resolve against the recipe's folder
    tools: [git, patch]      # checked (and installed with auto_install_dependencies) at after_open
    hook_timeout_s: 600      # bound on each hook command
    hooks:                   # shell commands run inside the environment, cwd = the environment's workdir
      after_open: [...]      # before the benchmark's setup (files are uploaded first)
      before_agent: [...]
      after_agent: [...]
      before_verify: [...]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agentcompass.errors import ConfigError

from .registry import GROUPS

PHASES = ("after_open", "before_agent", "after_agent", "before_verify")
OVERLAY_KEYS = (*GROUPS, "runtime", "execution", "output")
_FORBIDDEN = (("execution", "enabled_recipes"), ("runtime", "recipe_dirs"))


class Hooks(BaseModel):
    model_config = ConfigDict(extra="forbid")

    after_open: list[str] = Field(
        default_factory=list,
        description="after the environment opens, before the benchmark prepares it (files are uploaded just before)",
    )
    before_agent: list[str] = Field(default_factory=list, description="just before the agent starts")
    after_agent: list[str] = Field(default_factory=list, description="right after the agent phase ends")
    before_verify: list[str] = Field(default_factory=list, description="just before verification")


class RecipeFile(BaseModel):
    """The schema of ``conf/recipe/<id>.yaml`` (and of files in ``recipe_dirs``)."""

    model_config = ConfigDict(extra="forbid")

    description: str = Field("", description="what the recipe does (one line)")
    config: dict[str, Any] = Field(default_factory=dict, description="request config overlay")
    env: list[str] | dict[str, str | None] = Field(
        default_factory=list,
        description="host variables for hooks: a list (all required) or {NAME: default}, default null = required",
    )
    files: dict[str, str] = Field(default_factory=dict, description="host path -> absolute environment path")
    tools: list[str] = Field(default_factory=list, description="commands that must exist in the environment")
    hook_timeout_s: float = Field(600.0, gt=0, description="timeout of each hook command, seconds")
    hooks: Hooks = Field(default_factory=Hooks)

    @field_validator("config")
    @classmethod
    def _overlay(cls, value: dict[str, Any]) -> dict[str, Any]:
        for key in value:
            if key not in OVERLAY_KEYS:
                raise ValueError(f"unknown section {key!r}; allowed: {', '.join(OVERLAY_KEYS)}")
        for section, key in _FORBIDDEN:
            if isinstance(value.get(section), dict) and key in value[section]:
                raise ValueError(f"{section}.{key} cannot be set by a recipe (recipes are chosen before they apply)")
        return value

    @field_validator("files")
    @classmethod
    def _abs_targets(cls, value: dict[str, str]) -> dict[str, str]:
        for src, dst in value.items():
            if not str(dst).startswith("/"):
                raise ValueError(f"target of {src!r} must be an absolute environment path, got {dst!r}")
        return value

    @field_validator("tools")
    @classmethod
    def _tool_names(cls, value: list[str]) -> list[str]:
        for tool in value:
            if not tool or any(c in tool for c in " \t/;&|$`'\"<>()"):
                raise ValueError(f"{tool!r} is not a command name")
        return value


class RecipeRecord(TypedDict):
    """What the resolved config keeps of a recipe (``recipes.<id>`` in config.yaml): :meth:`Recipe.record`."""

    path: str
    description: str
    env: dict[str, str | None]  # host variable -> its default (None: required)
    files: dict[str, str]  # host path -> absolute environment path
    tools: list[str]
    hook_timeout_s: float
    hooks: dict[str, list[str]]  # phase -> its commands (phases with none left out)


@dataclass
class Recipe:
    """A loaded recipe: its id, file and validated content (``files`` resolved to host paths)."""

    id: str
    path: Path
    spec: RecipeFile
    files: dict[Path, str] = field(default_factory=dict)

    @property
    def env_defaults(self) -> dict[str, str | None]:
        env = self.spec.env
        return dict.fromkeys(env, None) if isinstance(env, list) else dict(env)

    def record(self) -> RecipeRecord:
        """What the resolved config keeps of this recipe (``recipes.<id>`` in config.yaml; no host values)."""
        hooks = {p: list(getattr(self.spec.hooks, p)) for p in PHASES if getattr(self.spec.hooks, p)}
        return {
            "path": str(self.path),
            "description": self.spec.description,
            "env": self.env_defaults,
            "files": {str(k): v for k, v in self.files.items()},
            "tools": list(self.spec.tools),
            "hook_timeout_s": self.spec.hook_timeout_s,
            "hooks": hooks,
        }


def builtin_dir() -> Path:
    from .registry import conf_dir

    return conf_dir() / "recipe"


def search_dirs(recipe_dirs: Sequence[str | Path]) -> list[Path]:
    """``conf/recipe/``, each plug-in's ``recipe/``, then each ``recipe_dirs`` entry in order (later ones win on a
    name clash)."""
    from .registry import plugin_conf_dirs

    dirs = [builtin_dir(), *(p / "recipe" for p in plugin_conf_dirs() if (p / "recipe").is_dir())]
    for d in recipe_dirs:
        p = Path(d).expanduser()
        if not p.is_dir():
            what = "is not a directory" if p.exists() else "does not exist"
            raise ConfigError(f"runtime.recipe_dirs: {str(d)!r} {what} (a directory of recipe YAML files)")
        dirs.append(p.resolve())
    return dirs


def available(recipe_dirs: Sequence[str | Path] = ()) -> dict[str, Path]:
    """Every recipe id found, mapped to the file that wins."""
    found: dict[str, Path] = {}
    for d in search_dirs(recipe_dirs):
        if d.is_dir():
            for f in sorted(d.glob("*.yaml")):
                found[f.stem] = f
    return dict(sorted(found.items()))


def load_file(rid: str, path: Path) -> Recipe:
    import yaml

    from .registry import validation_error

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(f"recipe file {str(path)!r}: cannot be read as YAML: {first}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(
            f"recipe file {str(path)!r}: must hold a mapping with keys "
            f"{', '.join(RecipeFile.model_fields)}, got {type(data).__name__}"
        )
    try:
        spec = RecipeFile.model_validate(data)
    except ValidationError as exc:
        loc = exc.errors()[0].get("loc", ())
        valid = list(PHASES) if loc[:1] == ("hooks",) and len(loc) > 1 else list(RecipeFile.model_fields)
        raise validation_error(exc, f"recipe file {str(path)!r}", valid) from None
    files: dict[Path, str] = {}
    for src, dst in spec.files.items():
        host = Path(src).expanduser()
        host = host if host.is_absolute() else (path.parent / host)
        if not host.exists():
            raise ConfigError(f"recipe file {str(path)!r}: files: {src!r} does not exist (resolved to {host})")
        files[host.resolve()] = dst
    return Recipe(rid, path, spec, files)


def load(ids: Sequence[str], recipe_dirs: Sequence[str | Path] = ()) -> list[Recipe]:
    """The recipes ``ids`` in order. An unknown id is a ConfigError listing the available ids; so is a
    ``recipe_dirs`` entry that is not a directory, even when no recipe is enabled (a typo is not ignored)."""
    if not ids:
        search_dirs(recipe_dirs)
        return []
    found = available(recipe_dirs)
    out: list[Recipe] = []
    for rid in ids:
        if rid not in found:
            where = ", ".join(str(d) for d in search_dirs(recipe_dirs))
            raise ConfigError(
                f"unknown recipe {rid!r}; available recipes: {', '.join(found) or '(none)'} (searched {where})"
            )
        if any(r.id == rid for r in out):
            raise ConfigError(f"recipe {rid!r} is enabled twice; list each recipe once")
        out.append(load_file(rid, found[rid]))
    return out
