"""Pieces of the loop: flow-control exceptions, templates, action parsing, observations, trajectory file."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from agentcompass.errors import ConfigError

from .config import MiniSweAgentConfig

BUILTIN_TEMPLATES = Path(__file__).resolve().parent.parent / "templates" / "mini_swe_agent"
TEMPLATE_KEYS = ("system_template", "instance_template", "format_error_template", "timeout_template",
                 "action_observation_template")


class Flow(Exception):
    """Harness-internal control flow; ``message`` becomes a user turn."""

    terminating = False

    def __init__(self, message: str = "") -> None:
        super().__init__(message)
        self.message = message


class FormatError(Flow):
    pass


class ExecutionTimeoutError(Flow):
    pass


class Submitted(Flow):
    terminating = True


class LimitsExceeded(Flow):
    terminating = True

    def __init__(self, message: str = "", limit: str = "") -> None:
        super().__init__(message)
        self.limit = limit


class TimeExceeded(LimitsExceeded):
    pass


class RepeatedFormatError(Flow):
    terminating = True


# --------------------------------------------------------------------------- templates


class Templates:
    """The five templates, loaded once and rendered with StrictUndefined."""

    def __init__(self, config: MiniSweAgentConfig) -> None:
        import jinja2

        self._env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=False,
                                       autoescape=False)
        self._templates = {key: self._load(key, getattr(config, key), config.template_dir) for key in TEMPLATE_KEYS}

    def _load(self, key: str, name: str, template_dir: str | None) -> Any:
        import jinja2

        candidates = [Path(name).expanduser()] if Path(name).expanduser().is_absolute() else \
            [*([Path(template_dir).expanduser() / name] if template_dir else []), BUILTIN_TEMPLATES / name]
        for path in candidates:
            if path.is_file():
                try:
                    return self._env.from_string(path.read_text(encoding="utf-8"))
                except jinja2.TemplateSyntaxError as exc:
                    raise ConfigError(f"harness mini_swe_agent: {key}={str(path)!r}: template syntax error "
                                      f"on line {exc.lineno}: {exc.message}") from None
        raise ConfigError(f"harness mini_swe_agent: {key}={name!r} not found (looked in: "
                          f"{', '.join(str(p.parent) for p in candidates)})")

    def render(self, key: str, **values: Any) -> str:
        import jinja2

        try:
            return self._templates[key].render(**values)
        except jinja2.UndefinedError as exc:
            raise ConfigError(f"harness mini_swe_agent: {key} uses an unknown variable: {exc.message}; "
                              f"available: {', '.join(sorted(values))}") from None


# --------------------------------------------------------------------------- actions and observations


def parse_actions(text: str, regex: str) -> list[str]:
    return [a.strip() for a in re.findall(regex, text, re.DOTALL)]


def split_output(output: str, config: MiniSweAgentConfig) -> dict[str, Any]:
    """Template values of an output: whole, or head + tail once it reaches ``output_limit_chars``."""
    if len(output) < config.output_limit_chars:
        return {"output": output, "truncated": False, "head": output, "tail": "", "elided_chars": 0,
                "output_chars": len(output)}
    head = output[: config.output_head_chars]
    tail = output[len(output) - config.output_tail_chars:] if config.output_tail_chars else ""
    return {"output": output, "truncated": True, "head": head, "tail": tail,
            "elided_chars": len(output) - len(head) - len(tail), "output_chars": len(output)}


def submission_of(output: str, exit_code: int, config: MiniSweAgentConfig) -> str | None:
    """The rest of the output when its first non-blank line is a submit marker, else None."""
    lines = output.lstrip().splitlines(keepends=True)
    if not lines or lines[0].strip() not in config.submit_markers:
        return None
    if config.submit_requires_zero_exit and exit_code != 0:
        return None
    return "".join(lines[1:])


# --------------------------------------------------------------------------- trajectory


def write_json_atomic(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    os.replace(tmp, path)


def trajectory_name(task_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "__", task_id) + ".traj.json"
