"""The installed ``mini-swe-agent`` package: importing it quietly, finding its config files, reading defaults.

Importing ``minisweagent`` prints a banner, creates a global config directory and loads the ``.env`` file in
it. :func:`load` sets the package's own documented variables first (``MSWEA_SILENT_STARTUP=1``, and
``MSWEA_GLOBAL_CONFIG_DIR`` to ``<data_dir>/mini-swe-agent`` unless the user has set it), so the import prints
nothing and touches only that directory. Nothing of the package is patched.

The package's LiteLLM model classes are never imported (LiteLLM takes seconds to import and loads ``.env``
files of its own): the few defaults they define (``format_error_template``, ``observation_template``,
``action_regex``) are read from the installed source files with :mod:`ast` when a config does not set them.
"""

from __future__ import annotations

import ast
import importlib.util
import os
from pathlib import Path
from types import ModuleType
from typing import Any

from agentcompass.errors import ConfigError
from agentcompass.kit import require

VERSION = "2.4.6"
REQUIREMENT = f"mini-swe-agent=={VERSION}"
EXTRA = "mini-swe-agent"
# model classes of the package this harness runs, by the package's short names (models/__init__.py)
MODEL_CLASSES = {"litellm": "toolcall", "litellm_textbased": "text"}
# the model class each shipped config is written for, where its `model` section does not name one: the
# text-mode SWE-bench config asks for exactly one ```mswea_bash_command block per reply (no tools)
CONFIG_MODEL_CLASS = {"swebench_backticks": "litellm_textbased", "mini_textbased": "litellm_textbased"}
_DEFAULT_SOURCES = {  # model class -> (module, config class) whose field defaults apply
    "litellm": ("minisweagent.models.litellm_model", "LitellmModelConfig"),
    "litellm_textbased": ("minisweagent.models.litellm_textbased_model", "LitellmTextbasedModelConfig"),
}


def load(data_dir: Path | None, *, purpose: str = "harness mini_swe_agent") -> ModuleType:
    """Import ``minisweagent`` (installing it with ``--auto-install-dependencies``) without its start-up noise."""
    os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")
    if not os.environ.get("MSWEA_GLOBAL_CONFIG_DIR"):
        base = Path(data_dir) if data_dir is not None else Path.home() / ".cache" / "agentcompass"
        os.environ["MSWEA_GLOBAL_CONFIG_DIR"] = str(base / "mini-swe-agent")
    module = require("minisweagent", EXTRA, package=REQUIREMENT, purpose=purpose)
    found = getattr(module, "__version__", "?")
    if found != VERSION:
        raise ConfigError(
            f"harness mini_swe_agent: mini-swe-agent {found} is installed; this harness runs "
            f"{VERSION} (its configs, prompts and trajectory format): "
            f"pip install '{REQUIREMENT}'"
        )
    return module


def builtin_configs() -> dict[str, Path]:
    """Name -> path of every config file shipped with the package (``swebench``, ``swebench_backticks``...)."""
    from minisweagent.config import builtin_config_dir

    found: dict[str, Path] = {}
    for sub in ("", "extra", "benchmarks"):  # the package's own search order
        for path in sorted((Path(builtin_config_dir) / sub).glob("*.yaml")):
            found.setdefault(path.stem, path)
    return found


def config_file(spec: str) -> tuple[str, Path]:
    """(name, path) of ``spec``: a shipped config's name, or the path of a YAML file."""
    looks_like_path = spec.endswith((".yaml", ".yml")) or os.sep in spec or spec.startswith("~")
    if looks_like_path:
        path = Path(spec).expanduser()
        if not path.is_file():
            raise ConfigError(f"harness mini_swe_agent: config={spec!r}: no such file")
        return path.stem, path.resolve()
    shipped = builtin_configs()
    if spec not in shipped:
        raise ConfigError(
            f"harness mini_swe_agent: config={spec!r} is not a config shipped with mini-swe-agent "
            f"{VERSION}; valid: {', '.join(sorted(shipped))} (or the path of a YAML file)"
        )
    return spec, shipped[spec]


def read_config(path: Path) -> dict[str, Any]:
    """The config file as the package reads it (``minisweagent.config.get_config_from_spec``)."""
    from minisweagent.config import get_config_from_spec

    try:
        data = get_config_from_spec(str(path))
    except Exception as exc:
        raise ConfigError(f"harness mini_swe_agent: config file {str(path)!r} cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"harness mini_swe_agent: config file {str(path)!r} is not a mapping")
    return data


def model_default(model_class: str, field: str) -> Any:
    """The default of ``field`` in the package's config class of ``model_class``, read from its source file."""
    module, cls = _DEFAULT_SOURCES[model_class]
    chain = [(module, cls)]
    if model_class != "litellm":
        chain.append(_DEFAULT_SOURCES["litellm"])  # LitellmTextbasedModelConfig(LitellmModelConfig)
    for mod, name in chain:
        value = _field_default(mod, name, field)
        if value is not _MISSING:
            return value
    raise ConfigError(
        f"harness mini_swe_agent: cannot read the default of model.{field} from mini-swe-agent's "
        f"{module}.{cls}; set model.{field} in the config"
    )


_MISSING = object()


def _field_default(module: str, cls: str, field: str) -> Any:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return _MISSING
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for stmt in node.body:
                if (
                    isinstance(stmt, ast.AnnAssign)
                    and isinstance(stmt.target, ast.Name)
                    and stmt.target.id == field
                    and stmt.value is not None
                ):
                    try:
                        return ast.literal_eval(stmt.value)
                    except ValueError:
                        return _MISSING
    return _MISSING
