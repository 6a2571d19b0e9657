"""Prompt templates of the terminus2 harness (``harnesses/templates/terminus2/*.j2``, StrictUndefined)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from agentcompass.errors import ConfigError

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates" / "terminus2"


@lru_cache(maxsize=8)
def _environment(directory: str) -> Any:
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(directory), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=False, trim_blocks=True, autoescape=False)


def render(name: str, directory: Path | str | None = None, **values: Any) -> str:
    """Render template ``name`` (e.g. ``"prompt.j2"``); a missing file or variable is a ConfigError."""
    import jinja2

    folder = Path(directory) if directory else TEMPLATES_DIR
    try:
        template = _environment(str(folder)).get_template(name)
        return template.render(**values).strip("\n")
    except jinja2.TemplateNotFound:
        raise ConfigError(f"terminus2: template {name!r} not found in {folder}") from None
    except jinja2.UndefinedError as exc:
        raise ConfigError(f"terminus2: template {folder / name}: {exc.message}") from None
