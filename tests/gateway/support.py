"""A gateway in front of the scripted model server, with the attempt's model client fork, for the tests."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcompass.gateway.service import Gateway, Session
from agentcompass.models.client import Model
from agentcompass.models.config import ModelConfig
from agentcompass.testing.scripted_server import ScriptedModelServer


@dataclass
class Attempt:
    attempt_dir: Path


@dataclass
class Rig:
    server: ScriptedModelServer
    root: Model
    model: Model  # the attempt's fork
    gateway: Gateway
    session: Session
    dir: Path

    @property
    def base_url(self) -> str:
        return self.gateway.base_url

    @property
    def token(self) -> str:
        return self.session.token

    def calls(self) -> list[dict[str, Any]]:
        path = self.dir / "model_calls.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def model_config(server: ScriptedModelServer, protocol: str, **extra: Any) -> ModelConfig:
    return ModelConfig(
        id="served-model", base_url=server.base_url, api_key="sk-real-key-123456789", api_protocol=protocol, **extra
    )


@asynccontextmanager
async def rig(server: ScriptedModelServer, protocol: str, tmp: Path, **extra: Any) -> AsyncIterator[Rig]:
    root = Model(model_config(server, protocol, **extra))
    model = root.fork(Attempt(tmp))
    gateway = await Gateway().start()
    try:
        yield Rig(server, root, model, gateway, gateway.open_session(model, "t"), tmp)
    finally:
        await gateway.aclose()
        await root.aclose()
