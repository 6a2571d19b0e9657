"""Each agent program's ``model_params`` declared once (``AgentOption``): the checks, flags, variables and docs that
come from the declaration."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from agentcompass.harnesses._installed import options
from agentcompass.harnesses._installed.__main__ import HARNESSES
from agentcompass.harnesses._installed.config import InstalledAgentConfig
from agentcompass.harnesses._installed.options import AgentOption
from agentcompass.harnesses.aider import AiderConfig
from agentcompass.harnesses.claude_code import ClaudeCodeConfig
from agentcompass.harnesses.cline import ClineConfig
from agentcompass.harnesses.codex import CodexConfig
from agentcompass.harnesses.gemini_cli import GeminiCliConfig
from agentcompass.harnesses.openhands import OpenHandsConfig

ROOT = Path(__file__).resolve().parents[3]


def _classes() -> dict[str, type]:
    out = {}
    for ident, target in HARNESSES.items():
        module, _, name = target.partition(":")
        out[ident] = getattr(importlib.import_module(module), name)
    return out


def test_an_option_becomes_its_flag_override_or_variable() -> None:
    assert AgentOption("e", flag="--effort").args("high") == ["--effort", "high"]
    assert AgentOption("e", setting="model_reasoning_effort").args("low") == ["-c", "model_reasoning_effort=low"]
    assert AgentOption("s", flag="--stream", switch=True).args(False) == ["--no-stream"]
    assert AgentOption("s", flag="--stream", switch=True).args(True) == ["--stream"]
    assert AgentOption("t", env="T").args(1) == []
    cfg = OpenHandsConfig(model_params={"temperature": 0.5, "reasoning_effort": "high"})
    assert cfg.option_variables() == {"LLM_REASONING_EFFORT": "high", "LLM_TEMPERATURE": "0.5"}
    codex = CodexConfig(model_params={"max_tokens": "300", "reasoning_summary": "auto"})
    assert codex.option_args() == ["-c", "model_reasoning_summary=auto", "-c", "model_max_output_tokens=300"]
    assert codex.option_args("max_tokens") == ["-c", "model_max_output_tokens=300"]
    cc = ClaudeCodeConfig(model_params={"reasoning_effort": "max", "max_tokens": 9})
    assert cc.option_args() == ["--effort", "max"] and cc.option_variables() == {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "9"}


def test_keys_values_and_turn_limits_are_checked_from_the_declaration() -> None:
    with pytest.raises(ValidationError, match=r"valid keys: reasoning_effort \(--thinking \(none, low"):
        ClineConfig(model_params={"effort": "low"})
    with pytest.raises(ValidationError, match="model_params.reasoning_effort='huge'; allowed: minimal, low"):
        GeminiCliConfig(model_params={"reasoning_effort": "huge"})
    with pytest.raises(ValidationError, match="the Cline CLI has no turn limit"):
        ClineConfig(max_turns=2)
    assert AiderConfig(model_params={"map_tokens": 0}).model_params == {"map_tokens": 0}
    assert InstalledAgentConfig(max_turns=3).max_turns == 3  # a program with a turn limit takes it


def test_every_agent_declares_options_and_lists_them() -> None:
    classes = _classes()
    assert len(classes) == 10
    for ident, cls in classes.items():
        assert issubclass(cls.config_class, InstalledAgentConfig) and cls.config_class is not InstalledAgentConfig
        declared = cls.config_class.OPTIONS
        assert declared, ident
        for o in declared:  # each option becomes exactly one thing
            assert sum(map(bool, (o.flag, o.setting, o.env, o.sets))) == 1, (ident, o.key)
        harness = cls(cls.config_class(), None)
        assert harness.version == cls.config_class.model_fields["version"].default
        listed = harness.listing()["model_params"]
        assert list(listed) == [o.key for o in declared]
        json.dumps(listed)


def test_the_generated_page_is_current_and_names_every_option() -> None:
    page = (ROOT / options.PAGE).read_text()
    assert page == options.page(), "docs/agent-options.md is stale: run python scripts/generate.py"
    for ident, cls in _classes().items():
        section = page.split(f"## {ident}\n", 1)[1].split("\n## ", 1)[0]
        for o in cls.config_class.OPTIONS:
            assert f"| `{o.key}` |" in section and f"`{o.target()}`" in section, (ident, o.key)
