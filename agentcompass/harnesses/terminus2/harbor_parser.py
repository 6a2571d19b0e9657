"""Terminus-2's reply parser: Harbor's own ``terminus_json_plain_parser.py``, loaded from its source at run time.

That module uses only the standard library (``json``, ``re``, ``dataclasses``), so it runs unchanged in this
interpreter; loading it (rather than re-implementing it) keeps every outcome Harbor's: which replies are errors
and which only warnings, the auto-corrections, the exact wording fed back to the model, ``task_complete`` taken
by truthiness (``2`` and ``[true]`` complete, ``" True "`` does not), durations taken as given (negative and NaN
included). :func:`commands_of` then applies what Terminus-2 does with the result: each duration becomes
``min(duration, 60)``.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field
from typing import Any

from agentcompass.errors import ConfigError
from agentcompass.harnesses.terminus2.harbor_source import HarborSource

PARSER_FILE = "terminus_json_plain_parser.py"
PARSER_CLASS = "TerminusJSONPlainParser"
DURATION_CAP_S = 60  # an int, as in Harbor (min(duration, 60) may be 60)
_MODULES: dict[str, types.ModuleType] = {}


@dataclass
class Command:
    """One keystroke batch: sent as one tmux argument, then the agent waits ``duration`` seconds."""

    keystrokes: str
    duration: float


@dataclass
class Parsed:
    """A parsed reply as the Terminus-2 loop uses it."""

    commands: list[Command] = field(default_factory=list)
    task_complete: bool = False
    error: str = ""
    warning: str = ""  # Harbor's "- a\n- b" list, or ""
    analysis: Any = ""
    plan: Any = ""


def load_module(source: HarborSource) -> types.ModuleType:
    """Harbor's parser module, compiled from ``source`` once per distinct text."""
    text = source.text(PARSER_FILE)
    key = source.sha256[PARSER_FILE]
    if key not in _MODULES:
        name = f"agentcompass_harbor_terminus2_parser_{key[:12]}"
        module = types.ModuleType(name)
        module.__file__ = f"{source.origin}/{PARSER_FILE}"
        sys.modules[name] = module  # dataclasses look their module up while the class is built
        try:
            exec(compile(text, module.__file__, "exec"), module.__dict__)
        except Exception as exc:
            sys.modules.pop(name, None)
            raise ConfigError(
                f"terminus2: Harbor's {PARSER_FILE} from {source.origin} does not load: {type(exc).__name__}: {exc}"
            ) from None
        if not hasattr(module, PARSER_CLASS):
            sys.modules.pop(name, None)
            raise ConfigError(f"terminus2: {module.__file__} has no {PARSER_CLASS}")
        _MODULES[key] = module
    return _MODULES[key]


def commands_of(parsed_commands: list[Any], cap: float = DURATION_CAP_S) -> list[Command]:
    """Terminus-2's commands from the parser's: keystrokes as given, ``min(duration, cap)``."""
    return [Command(keystrokes=c.keystrokes, duration=min(c.duration, cap)) for c in parsed_commands]


class ReplyParser:
    """``parse(text) -> Parsed`` with Harbor's parser loaded from ``source``."""

    def __init__(self, source: HarborSource, duration_cap_s: float = DURATION_CAP_S) -> None:
        self._parser = getattr(load_module(source), PARSER_CLASS)()
        self.cap = duration_cap_s

    def parse(self, text: str) -> Parsed:
        result = self._parser.parse_response(text)
        return Parsed(
            commands=commands_of(result.commands, self.cap),
            task_complete=bool(result.is_task_complete),
            error=result.error,
            warning=result.warning,
            analysis=result.analysis,
            plan=result.plan,
        )

    def warning_of(self, text: str) -> str:
        """The parser's warnings for ``text`` (used for a reply cut by the output-length limit)."""
        return self._parser.parse_response(text).warning
