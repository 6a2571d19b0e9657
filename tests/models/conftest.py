"""Fixtures of the model-layer tests: a model built exactly as the orchestrator builds it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentcompass._config.registry import build
from agentcompass.interfaces import ComponentContext

TEST_KEY = "sk-test-0123456789abcdef-SECRET"


@pytest.fixture
def make_model(tmp_path: Path) -> Callable[..., Any]:
    """``make_model(base_url, **fields)``: a ``Model`` built through the registry (fast backoff)."""

    def make(base_url: str, **fields: Any) -> Any:
        cfg = {
            "_target_": "agentcompass.models.client.Model",
            "id": "test-model",
            "base_url": base_url,
            "api_key": TEST_KEY,
            "api_protocol": "openai-chat",
            "backoff_base_s": 0.01,
            "backoff_max_s": 0.05,
            **fields,
        }
        return build("model", cfg, ComponentContext(data_dir=tmp_path))

    return make


@pytest.fixture
def api_key() -> str:
    """The key every ``make_model`` client sends (tests assert it never leaks)."""
    return TEST_KEY
