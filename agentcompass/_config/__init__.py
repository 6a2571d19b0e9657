"""Configuration: Hydra composition (locked), pydantic validation, component building, redaction.

The modules: :mod:`.compose` (a request composed by Hydra, under one lock; imports hydra and omegaconf when it
composes), :mod:`.schema` (the pydantic models of a request's sections), :mod:`.options` (the options table every
entry point reads), :mod:`.registry` (components built from ``_target_``, the config groups, plug-in config
directories), :mod:`.redact` (secrets kept out of logs and files), :mod:`.recipes` (recipe files), :mod:`.merge`,
:mod:`.overrides`, :mod:`.paths`, :mod:`.compose_cache` and :mod:`.reference` (the generated options page).

Other packages import the names below from this package, never its modules (tests/import_rules.py). They are
imported on first use (PEP 562): ``from agentcompass._config import for_entry`` loads the options table, not Hydra.
A few carry a longer name here than in their module, where the short one would be ambiguous or would shadow a
module (``redact_config`` is :func:`.redact.redact`; ``load_recipes`` is :func:`.recipes.load`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # explicit re-exports, for the type checker
    from .compose import ComposeInput as ComposeInput
    from .compose import ResolvedRequest as ResolvedRequest
    from .compose import component_config as component_config
    from .compose import compose_request as compose_request
    from .compose import hydra_lock as hydra_lock
    from .compose import with_runtime as with_runtime
    from .merge import deep_merge as deep_merge
    from .options import Option as Option
    from .options import by_name as by_name
    from .options import config_layer as config_layer
    from .options import for_entry as for_entry
    from .options import normalized as normalized
    from .options import runtime_fields as runtime_fields
    from .paths import data_dir as data_dir
    from .paths import default_data_dir as default_data_dir
    from .recipes import PHASES as RECIPE_PHASES
    from .recipes import Recipe as Recipe
    from .recipes import RecipeFile as RecipeFile
    from .recipes import RecipeRecord as RecipeRecord
    from .recipes import available as available_recipes
    from .recipes import load as load_recipes
    from .recipes import search_dirs as recipe_search_dirs
    from .redact import RedactingFilter as RedactingFilter
    from .redact import redact as redact_config
    from .redact import register_config_secrets as register_config_secrets
    from .redact import register_secret as register_secret
    from .redact import scrub as scrub
    from .redact import secret_name as secret_name
    from .reference import PAGE as OPTIONS_PAGE
    from .reference import options_markdown as options_markdown
    from .registry import GROUPS as GROUPS
    from .registry import Components as Components
    from .registry import build as build
    from .registry import build_components as build_components
    from .registry import check_id as check_id
    from .registry import component_file as component_file
    from .registry import conf_dir as conf_dir
    from .registry import import_target as import_target
    from .registry import list_ids as list_ids
    from .registry import validation_error as validation_error
    from .schema import SAFE_NAME as SAFE_NAME
    from .schema import ExecutionConfig as ExecutionConfig
    from .schema import OutputConfig as OutputConfig
    from .schema import RequestConfig as RequestConfig
    from .schema import RuntimeConfig as RuntimeConfig
    from .schema import Strict as Strict
    from .schema import default_of as default_of

# name -> (module, its name there)
_EXPORTS = {
    "ComposeInput": ("compose", "ComposeInput"),
    "ResolvedRequest": ("compose", "ResolvedRequest"),
    "component_config": ("compose", "component_config"),
    "compose_request": ("compose", "compose_request"),
    "hydra_lock": ("compose", "hydra_lock"),
    "with_runtime": ("compose", "with_runtime"),
    "deep_merge": ("merge", "deep_merge"),
    "Option": ("options", "Option"),
    "by_name": ("options", "by_name"),
    "config_layer": ("options", "config_layer"),
    "for_entry": ("options", "for_entry"),
    "normalized": ("options", "normalized"),
    "runtime_fields": ("options", "runtime_fields"),
    "data_dir": ("paths", "data_dir"),
    "default_data_dir": ("paths", "default_data_dir"),
    "RECIPE_PHASES": ("recipes", "PHASES"),
    "Recipe": ("recipes", "Recipe"),
    "RecipeRecord": ("recipes", "RecipeRecord"),
    "RecipeFile": ("recipes", "RecipeFile"),
    "available_recipes": ("recipes", "available"),
    "load_recipes": ("recipes", "load"),
    "recipe_search_dirs": ("recipes", "search_dirs"),
    "RedactingFilter": ("redact", "RedactingFilter"),
    "redact_config": ("redact", "redact"),
    "register_config_secrets": ("redact", "register_config_secrets"),
    "register_secret": ("redact", "register_secret"),
    "scrub": ("redact", "scrub"),
    "secret_name": ("redact", "secret_name"),
    "OPTIONS_PAGE": ("reference", "PAGE"),
    "options_markdown": ("reference", "options_markdown"),
    "Components": ("registry", "Components"),
    "GROUPS": ("registry", "GROUPS"),
    "build": ("registry", "build"),
    "build_components": ("registry", "build_components"),
    "check_id": ("registry", "check_id"),
    "component_file": ("registry", "component_file"),
    "conf_dir": ("registry", "conf_dir"),
    "import_target": ("registry", "import_target"),
    "list_ids": ("registry", "list_ids"),
    "validation_error": ("registry", "validation_error"),
    "ExecutionConfig": ("schema", "ExecutionConfig"),
    "OutputConfig": ("schema", "OutputConfig"),
    "RequestConfig": ("schema", "RequestConfig"),
    "RuntimeConfig": ("schema", "RuntimeConfig"),
    "SAFE_NAME": ("schema", "SAFE_NAME"),
    "Strict": ("schema", "Strict"),
    "default_of": ("schema", "default_of"),
}

__all__ = [
    "Components",
    "ComposeInput",
    "ExecutionConfig",
    "GROUPS",
    "OPTIONS_PAGE",
    "Option",
    "OutputConfig",
    "RECIPE_PHASES",
    "Recipe",
    "RecipeRecord",
    "RecipeFile",
    "RedactingFilter",
    "RequestConfig",
    "ResolvedRequest",
    "RuntimeConfig",
    "SAFE_NAME",
    "Strict",
    "available_recipes",
    "build",
    "build_components",
    "by_name",
    "check_id",
    "component_config",
    "component_file",
    "compose_request",
    "conf_dir",
    "config_layer",
    "data_dir",
    "deep_merge",
    "default_data_dir",
    "default_of",
    "for_entry",
    "hydra_lock",
    "import_target",
    "list_ids",
    "load_recipes",
    "normalized",
    "options_markdown",
    "recipe_search_dirs",
    "redact_config",
    "register_config_secrets",
    "register_secret",
    "runtime_fields",
    "scrub",
    "secret_name",
    "validation_error",
    "with_runtime",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        module, attribute = _EXPORTS[name]
        return vars(importlib.import_module(f"{__name__}.{module}"))[attribute]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
