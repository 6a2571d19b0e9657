"""The provider key variables live with the model protocols: each protocol names the variable its key is read
from, the client reads that one, every bundled protocol's variable is a secret of the run, and no module outside
the model layer names them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from agentcompass._config.registry import build
from agentcompass.errors import ConfigError
from agentcompass.interfaces import ComponentContext
from agentcompass.models import protocols
from agentcompass.redaction import known_secrets

ROOT = Path(__file__).resolve().parents[2] / "agentcompass"


def test_each_protocol_names_its_key_variable():
    assert protocols.key_env("openai-chat") == "OPENAI_API_KEY"
    assert protocols.key_env("openai-responses") == "OPENAI_API_KEY"
    assert protocols.key_env("anthropic-messages") == "ANTHROPIC_API_KEY"
    assert {"OPENAI_API_KEY", "ANTHROPIC_API_KEY"} <= set(protocols.key_envs())


def _model(tmp_path: Path, protocol: str, base_url: str | None = None):
    section = {"_target_": "agentcompass.models.client.Model", "id": "m", "api_protocol": protocol}
    if base_url:
        section["base_url"] = base_url
    return build("model", section, ComponentContext(data_dir=tmp_path))


def test_the_client_reads_the_protocols_variable_and_registers_every_bundled_one(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-env-key-5150")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-anthropic-env-key-6160")
    model = _model(tmp_path, "openai-chat", "http://127.0.0.1:9/v1")
    assert model._api_key("openai-chat") == "sk-openai-env-key-5150"
    assert {"sk-openai-env-key-5150", "sk-anthropic-env-key-6160"} <= set(known_secrets())


def test_a_missing_key_names_the_protocols_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="set ANTHROPIC_API_KEY or model.api_key"):
        _model(tmp_path, "anthropic-messages")


def test_no_module_outside_the_model_layer_names_a_provider_key():
    """The orchestrator, the config layer and the SDK ask the protocols; harnesses name the variables the agent
    CLIs they install read (facts of those CLIs), not the host's keys."""
    named = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).parts
        if rel[0] in ("models", "harnesses", "testing"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
                named.append(f"{'/'.join(rel)}:{node.lineno}")
    assert named == []
