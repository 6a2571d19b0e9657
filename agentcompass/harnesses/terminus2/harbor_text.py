"""Harbor's Terminus-2 prompt strings, read from its source files at run time (nothing of it is stored here).

Besides the template files (``templates/terminus-json-plain.txt``), Terminus-2 builds most of what it sends to
the model in code: the summarization prompts, the confirmation question, the parse-error and warning prefixes,
the output-length message, the truncation note, the terminal-output headers. Each is an f-string (or a ``+``
of strings) in ``terminus_2.py`` / ``tmux_session.py``. :func:`extract` finds one by where it is (function,
assigned name, or ``return``) and by the expressions it interpolates, and turns it into a :class:`Template`
whose slots are named by those expressions (``"summary_response.content"``). :class:`HarborPrompts` holds
every one the harness needs; a source where one cannot be found is a :class:`ConfigError` naming it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from agentcompass.errors import ConfigError
from agentcompass.harnesses.terminus2.harbor_source import HarborSource

PROMPT_FILE = "templates/terminus-json-plain.txt"


@dataclass(frozen=True)
class Slot:
    expr: str  # the interpolated Python expression, as source text


@dataclass(frozen=True)
class Template:
    name: str
    parts: tuple[str | Slot, ...]

    @property
    def slots(self) -> frozenset[str]:
        return frozenset(p.expr for p in self.parts if isinstance(p, Slot))

    def render(self, **values: Any) -> str:
        """The string, with ``values`` keyed by slot expression (``render(**{"result.error": e})``)."""
        missing = self.slots - values.keys()
        if missing:
            raise ConfigError(f"terminus2: Harbor's {self.name} text needs {', '.join(sorted(missing))}")
        return "".join(p if isinstance(p, str) else str(values[p.expr]) for p in self.parts)


def string_parts(node: ast.expr) -> tuple[str | Slot, ...] | None:
    """``node`` (an f-string, a string constant, a ``+`` of those and names) as parts; None if not a string."""
    if isinstance(node, ast.Constant):
        return (node.value,) if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        parts: list[str | Slot] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(value.value)
            elif isinstance(value, ast.FormattedValue) and value.conversion == -1 and value.format_spec is None:
                parts.append(Slot(ast.unparse(value.value)))
            else:
                return None
        return tuple(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _operand(node.left), _operand(node.right)
        return None if left is None or right is None else left + right
    return None


def _operand(node: ast.expr) -> tuple[str | Slot, ...] | None:
    parts = string_parts(node)
    if parts is not None:
        return parts
    return (Slot(ast.unparse(node)),) if isinstance(node, (ast.Name, ast.Attribute, ast.Call)) else None


def _function(tree: ast.Module, func: str) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == func:
            return node
    raise LookupError(f"function {func}")


def _candidates(scope: ast.AST, kind: str, target: str | None) -> list[ast.expr]:
    found: list[ast.expr] = []
    for node in ast.walk(scope):
        if kind == "assign" and isinstance(node, ast.Assign) and len(node.targets) == 1:
            if isinstance(node.targets[0], ast.Name) and node.targets[0].id == target:
                found.append(node.value)
        elif kind == "augassign" and isinstance(node, ast.AugAssign):
            if isinstance(node.target, ast.Name) and node.target.id == target:
                found.append(node.value)
        elif (
            kind == "return"
            and isinstance(node, ast.Return)
            and node.value is not None
            or kind == "keyword"
            and isinstance(node, ast.keyword)
            and node.arg == target
        ):
            found.append(node.value)
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _json_branch(scope: ast.AST) -> ast.AST:
    """The body of ``if self.options.parser_name == "json":`` in ``scope``."""
    for node in ast.walk(scope):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            values = [c.value for c in node.test.comparators if isinstance(c, ast.Constant)]
            if values == ["json"]:
                return ast.Module(body=node.body, type_ignores=[])
    raise LookupError("the json branch")


def extract(
    tree: ast.Module,
    name: str,
    func: str,
    kind: str,
    target: str | None,
    slots: set[str],
    index: int = 0,
    json_branch: bool = False,
) -> Template:
    """The ``index``-th string of ``kind`` in ``func`` whose slots are exactly ``slots``."""
    scope = _function(tree, func)
    if json_branch:
        scope = _json_branch(scope)
    matches = []
    for value in _candidates(scope, kind, target):
        parts = string_parts(value)
        if parts is not None and {p.expr for p in parts if isinstance(p, Slot)} == slots:
            matches.append(parts)
    if len(matches) <= index:
        raise LookupError(f"{kind} {target or ''} with slots {sorted(slots)} in {func}")
    return Template(name, matches[index])


# name: (file, function, kind, target, slots, index, json_branch)
_CATALOGUE: dict[str, tuple[str, str, str, str | None, set[str], int, bool]] = {
    "summary": ("terminus_2.py", "_summarize", "assign", "summary_prompt", {"original_instruction"}, 0, False),
    "questions": (
        "terminus_2.py",
        "_summarize",
        "assign",
        "question_prompt",
        {"original_instruction", "summary_response.content", "current_screen"},
        0,
        False,
    ),
    "answers": ("terminus_2.py", "_summarize", "assign", "answer_request_prompt", {"model_questions"}, 0, False),
    "handoff": ("terminus_2.py", "_summarize", "assign", "handoff_prompt", {"answers_response.content"}, 0, False),
    "short_summary": (
        "terminus_2.py",
        "_query_llm",
        "assign",
        "short_prompt",
        {"original_instruction", "limited_screen"},
        0,
        False,
    ),
    "short_handoff": (
        "terminus_2.py",
        "_query_llm",
        "assign",
        "summary_prompt",
        {"original_instruction", "short_llm_response.content"},
        0,
        False,
    ),
    "screen_handoff": (
        "terminus_2.py",
        "_query_llm",
        "assign",
        "summary_prompt",
        {"original_instruction", "limited_screen"},
        0,
        False,
    ),
    "fallback_reply": ("terminus_2.py", "_query_llm", "keyword", "content", set(), 0, False),
    "limit_tokens": ("terminus_2.py", "_query_llm", "assign", "limit_str", {"output_limit"}, 0, False),
    "limit_unknown": ("terminus_2.py", "_query_llm", "assign", "limit_str", set(), 0, False),
    "output_length": ("terminus_2.py", "_query_llm", "assign", "error_msg", {"limit_str"}, 0, False),
    "truncated_warnings": (
        "terminus_2.py",
        "_query_llm",
        "assign",
        "warnings_text",
        {"parse_result.warning"},
        0,
        False,
    ),
    "feedback_error": ("terminus_2.py", "_handle_llm_interaction", "augassign", "feedback", {"result.error"}, 0, False),
    "feedback_error_warnings": (
        "terminus_2.py",
        "_handle_llm_interaction",
        "augassign",
        "feedback",
        {"result.warning"},
        0,
        False,
    ),
    "feedback_warnings": (
        "terminus_2.py",
        "_handle_llm_interaction",
        "augassign",
        "feedback",
        {"result.warning"},
        1,
        False,
    ),
    "parse_error": (
        "terminus_2.py",
        "_run_agent_loop",
        "assign",
        "prompt",
        {"feedback", "self._get_error_response_type()"},
        0,
        False,
    ),
    "warnings": (
        "terminus_2.py",
        "_run_agent_loop",
        "assign",
        "observation",
        {"feedback", "self._limit_output_length(terminal_output)"},
        0,
        False,
    ),
    "confirm": ("terminus_2.py", "_get_completion_confirmation_message", "return", None, {"terminal_output"}, 0, True),
    "response_type": ("terminus_2.py", "_get_error_response_type", "return", None, set(), 0, True),
    "output_limited": (
        "terminus_2.py",
        "_limit_output_length",
        "return",
        None,
        {"first_portion", "max_bytes", "omitted_bytes", "last_portion"},
        0,
        False,
    ),
    "current_screen": ("tmux_session.py", "get_incremental_output", "return", None, {"visible_screen"}, 0, False),
    "new_output": ("tmux_session.py", "get_incremental_output", "return", None, {"new_content"}, 0, False),
}


class HarborPrompts:
    """Every Harbor Terminus-2 text the harness sends, read from ``source``; ``t[name]`` is a Template."""

    def __init__(self, source: HarborSource) -> None:
        self.source = source
        self.prompt_template = source.text(PROMPT_FILE)
        trees: dict[str, ast.Module] = {}
        self.templates: dict[str, Template] = {}
        for name, (file, func, kind, target, slots, index, branch) in _CATALOGUE.items():
            try:
                if file not in trees:
                    trees[file] = ast.parse(source.text(file), filename=file)
                self.templates[name] = extract(trees[file], name, func, kind, target, slots, index, branch)
            except (LookupError, SyntaxError) as exc:
                raise ConfigError(
                    f"terminus2: cannot read Harbor's {name} text from {file} in {source.origin}: "
                    f"{exc} not found (this harness reproduces Harbor 0.26.0)"
                ) from None

    def __getitem__(self, name: str) -> Template:
        return self.templates[name]

    def text(self, name: str, **values: Any) -> str:
        return self.templates[name].render(**values)

    def first_prompt(self, instruction: str, terminal_state: str) -> str:
        """Harbor's ``terminus-json-plain.txt`` filled as Harbor fills it (``str.format``)."""
        return self.prompt_template.format(instruction=instruction, terminal_state=terminal_state)
