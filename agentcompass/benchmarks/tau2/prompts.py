"""The texts of τ²-bench's text-mode simulation, read at run time from a tau2-bench checkout (``root``).

Nothing here holds tau2-bench's words: the agent's system prompt template and instruction
(``src/tau2/agent/llm_agent.py``), the orchestrator's default first agent message
(``src/tau2/orchestrator/orchestrator.py``), the user simulator's system prompt template
(``src/tau2/user/user_simulator.py``), its stop signals (``src/tau2/user/user_simulator_base.py``) and the simulation
guidelines (``data/tau2/user_simulator/*.md``) are read from those files with :mod:`ast`; the user scenario is
rendered by the reference's own ``__str__`` methods (``src/tau2/data_model/tasks.py``), compiled from its source.
"""

from __future__ import annotations

import ast
import functools
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentcompass.errors import DatasetError

from .shapes import UserScenario

LLM_AGENT = "src/tau2/agent/llm_agent.py"
ORCHESTRATOR = "src/tau2/orchestrator/orchestrator.py"
USER_SIMULATOR = "src/tau2/user/user_simulator.py"
USER_SIMULATOR_BASE = "src/tau2/user/user_simulator_base.py"
TASKS_MODEL = "src/tau2/data_model/tasks.py"
GUIDELINES_DIR = "data/tau2/user_simulator"
GUIDELINES = "simulation_guidelines.md"  # a user without tools
GUIDELINES_TOOLS = "simulation_guidelines_tools.md"  # a user with tools (telecom)
PERSONA_PLACEHOLDER = "<PERSONA_GUIDELINES>"  # replaced by the runtime persona's guidelines ("" by default)


@functools.lru_cache(maxsize=32)
def _module(path: Path) -> ast.Module:
    try:
        return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError) as exc:
        raise DatasetError(f"tau2-bench source {path} cannot be read: {exc}") from None


def _string(node: ast.expr, where: str) -> str:
    """A string constant, or a string constant's ``.strip()``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "strip"
        and not node.args
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    ):
        return node.func.value.value.strip()
    raise DatasetError(f"{where} is not a string constant")


def _assignment(root: Path, rel: str, name: str) -> ast.expr:
    for node in _module(root / rel).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node.value
    raise DatasetError(f"{name} not found in {root / rel}")


def constant(root: Path, rel: str, name: str) -> str:
    """The module-level string ``name`` of tau2-bench source file ``rel``."""
    return _string(_assignment(root, rel, name), f"{name} in {rel}")


def agent_system_prompt(root: Path, domain_policy: str) -> str:
    """The system prompt of the reference LLM agent (``LLMAgent.system_prompt``) for a domain's policy."""
    template = constant(root, LLM_AGENT, "SYSTEM_PROMPT")
    instruction = constant(root, LLM_AGENT, "AGENT_INSTRUCTION")
    return template.format(domain_policy=domain_policy, agent_instruction=instruction)


def first_agent_message(root: Path) -> str:
    """The content of the orchestrator's ``DEFAULT_FIRST_AGENT_MESSAGE`` (the agent's greeting)."""
    node = _assignment(root, ORCHESTRATOR, "DEFAULT_FIRST_AGENT_MESSAGE")
    if isinstance(node, ast.Call):
        for kw in node.keywords:
            if kw.arg == "content":
                return _string(kw.value, "DEFAULT_FIRST_AGENT_MESSAGE.content")
    raise DatasetError(f"DEFAULT_FIRST_AGENT_MESSAGE in {root / ORCHESTRATOR} has no content")


def stop_signals(root: Path) -> tuple[str, ...]:
    """The user's stop signals as ``UserSimulator.is_stop`` checks them: STOP, TRANSFER, OUT_OF_SCOPE."""
    return tuple(constant(root, USER_SIMULATOR_BASE, n) for n in ("STOP", "TRANSFER", "OUT_OF_SCOPE"))


def user_guidelines(root: Path, use_tools: bool) -> str:
    """The global simulation guidelines (the tools variant when the user has tools)."""
    path = root / GUIDELINES_DIR / (GUIDELINES_TOOLS if use_tools else GUIDELINES)
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(f"tau2-bench user simulation guidelines {path} cannot be read: {exc}") from None


def user_system_prompt(root: Path, instructions: str, use_tools: bool, persona_guidelines: str = "") -> str:
    """``UserSimulator.system_prompt``: the guidelines (persona guidelines put in) and the scenario."""
    if persona_guidelines:
        persona_guidelines = f"\n\n{persona_guidelines}\n"
    guidelines = user_guidelines(root, use_tools).replace(PERSONA_PLACEHOLDER, persona_guidelines)
    template = constant(root, USER_SIMULATOR, "SYSTEM_PROMPT")
    return template.format(global_user_sim_guidelines_with_persona=guidelines, instructions=instructions)


@functools.lru_cache(maxsize=8)
def _str_methods(root: Path) -> dict[str, Callable[[object], str]]:
    """The ``__str__`` functions of ``StructuredUserInstructions`` and ``UserScenario``, compiled from the source."""
    out: dict[str, Callable[[object], str]] = {}
    for node in _module(root / TASKS_MODEL).body:
        if isinstance(node, ast.ClassDef) and node.name in ("StructuredUserInstructions", "UserScenario"):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__str__":
                    code = compile(ast.Module(body=[item], type_ignores=[]), str(root / TASKS_MODEL), "exec")
                    namespace: dict[str, Any] = {"textwrap": textwrap}
                    exec(code, namespace)  # the reference's own method, run on a plain object below
                    out[node.name] = namespace["__str__"]
    if len(out) != 2:
        raise DatasetError(f"UserScenario.__str__ not found in {root / TASKS_MODEL}")
    return out


_INSTRUCTION_FIELDS = ("domain", "reason_for_call", "known_info", "unknown_info", "task_instructions")


def user_instructions(root: Path, user_scenario: UserScenario) -> str:
    """``str(task.user_scenario)``: what the user simulator is told (its ``instructions``)."""
    methods = _str_methods(root)
    raw = user_scenario.get("instructions")
    instructions: Any = raw
    if isinstance(raw, dict):
        cls = type("StructuredUserInstructions", (), {"__str__": methods["StructuredUserInstructions"]})
        instructions = cls()
        for key in _INSTRUCTION_FIELDS:
            setattr(instructions, key, raw.get(key))
    scenario = type("UserScenario", (), {"__str__": methods["UserScenario"]})()
    scenario.persona = user_scenario.get("persona")
    scenario.instructions = instructions
    return str(scenario)
