"""The model endpoint an agent program is given: the attempt's gateway endpoint (base URL reachable from inside
the environment, a per-attempt token, the request's model name). The real API key never enters the environment."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentcompass.errors import ConfigError


@dataclass(frozen=True)
class Endpoint:
    """What the agent is told: ``root`` (no ``/v1``), ``v1`` (``root + "/v1"``), the token and the model name."""

    root: str
    token: str
    model: str
    raw: Any = None  # the gateway's own endpoint object

    @property
    def v1(self) -> str:
        return self.root + "/v1"


def _root(url: str) -> str:
    url = url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


async def endpoint(ctx: Any, env: Any, harness: str, model_name: str) -> Endpoint:
    """The attempt's gateway endpoint for ``env``; ConfigError when this attempt has no gateway."""
    make = getattr(ctx, "gateway", None)
    if make is None:
        raise ConfigError(
            f"harness {harness} runs a published agent program, which calls the model itself through the model "
            f"gateway; this attempt has none (the gateway is started by agentcompass run / launch)"
        )
    got = await make(env)
    model = str(getattr(got, "model", None) or model_name)
    return Endpoint(_root(str(got.base_url)), str(got.token), model, got)
