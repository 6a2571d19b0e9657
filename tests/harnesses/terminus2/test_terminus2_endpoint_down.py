"""terminus2 tries a failed model query again (Harbor's three tries), except once the request has stopped: a
model endpoint declared down is raised at once, with no "try 2 of 3"."""

from __future__ import annotations

import asyncio
import logging
import socket

import pytest

from agentcompass._config.registry import build
from agentcompass.errors import ModelEndpointDownError
from agentcompass.harnesses.terminus2.query import Conversation
from agentcompass.interfaces import ComponentContext


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens on it once closed


def test_a_dead_endpoint_is_not_queried_again(tmp_path, caplog):
    cfg = {
        "_target_": "agentcompass.models.client.Model",
        "id": "m",
        "base_url": f"http://127.0.0.1:{closed_port()}/v1",
        "api_key": "k",
        "api_protocol": "openai-chat",
        "max_retries": 0,
        "fail_fast_after": 1,
    }
    model = build("model", cfg, ComponentContext(data_dir=tmp_path))
    log = logging.getLogger("agentcompass.test.terminus2")
    conversation = Conversation(
        model, None, None, attempts=3, enable_summarize=False, output_limit=None, logger=log, on_handoff=print
    )

    async def go() -> None:
        try:
            await conversation.query("hello")
        finally:
            await model.aclose()

    with caplog.at_level(logging.WARNING, logger=log.name), pytest.raises(ModelEndpointDownError):
        asyncio.run(go())
    assert not [r.getMessage() for r in caplog.records if "try 2 of 3" in r.getMessage()]
